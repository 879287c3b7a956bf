import type { Schemas } from '../../src/api/openapi-types.js';
import type { Api } from './api.js';

/** The calling token as `GET /api/users/tokens/me/` describes it. */
export type TokenDescription = Schemas['Token'];

/** What an action needs: a permission, or a superuser's token. */
export type ActionRequirement = Schemas['Permission'] | 'superuser';

/** What the signed-in token may do, so the pages offer nothing it would be refused. */
export class Access {
  constructor(readonly token: TokenDescription) {}

  static async of(api: Api): Promise<Access> {
    return new Access(await api.get<TokenDescription>('/api/users/tokens/me/'));
  }

  /** May read what this permission (or `superuser`) guards. */
  canRead(requirement: ActionRequirement): boolean {
    return this.token.superuser || (requirement !== 'superuser' && this.token.permissions.includes(requirement));
  }

  /** May change what this permission (or `superuser`) guards: a read-only token changes nothing. */
  canWrite(requirement: ActionRequirement): boolean {
    return this.token.write_enabled && this.canRead(requirement);
  }
}
