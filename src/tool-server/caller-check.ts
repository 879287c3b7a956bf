import { createHash, timingSafeEqual } from 'node:crypto';
import { hasPermission, type Principal } from '../records/auth/permissions.js';
import { AuthenticationError, PermissionDeniedError } from '../kernel/errors.js';

/** A user of this service calling with one of their API tokens (`tokenId`). */
export interface UserCaller {
  kind: 'user';
  username: string;
  superuser: boolean;
  tokenId: string;
}

/** Who called the HTTP tool server: the static token's holder or a user of this service. */
export type Caller = { kind: 'static' } | UserCaller;

/**
 * Port: a short-lived key with exactly a user caller's rights on this service's own API (a
 * delegated token, as a chat turn's), for one call's platform requests; `revoke` ends it.
 */
export type CallerDelegation = (caller: UserCaller) => Promise<{ key: string; revoke(): Promise<void> }>;

/** Port: decides whether an `Authorization` header may use the tool server (throws the domain error otherwise). */
export interface CallerCheck {
  verify(authorization: string | undefined): Promise<Caller>;
}

export interface CallerCheckOptions {
  /** MCP_HTTP_TOKEN. */
  staticToken?: string;
  /** This service's API tokens (when the tool server shares its Redis). */
  tokens?: { authenticate(key: string): Promise<Principal> };
  /** The tool server's URL as hosts reach it: the one audience an OAuth access token may be bound to here. */
  resource?: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Throws unless `principal` may use the tool server: a superuser or a holder of
 * `ai_ops.use_toolserver`, with a token that may write (the tools can change the platform and the
 * knowledge base, so a read-only token is refused).
 */
export function checkToolServerRights(principal: Principal): void {
  if (!hasPermission(principal, 'ai_ops.use_toolserver')) {
    throw new PermissionDeniedError('You do not have permission to use the tool server (needs ai_ops.use_toolserver).');
  }
  if (!principal.writeEnabled) throw new PermissionDeniedError("This token is read-only; the tool server's tools can change the platform.");
}

/**
 * Every request to the HTTP tool server carries `Authorization: Bearer <token>` (or `Token <key>`,
 * as the API takes it): the configured static token, or an API token of this service that passes
 * `checkToolServerRights`, an OAuth access token included when it was issued for this server's URL.
 */
export function callerCheck({ staticToken, tokens, resource }: CallerCheckOptions): CallerCheck {
  const expected = staticToken ? digest(staticToken) : undefined;
  return {
    async verify(authorization) {
      const key = /^(?:Bearer|Token)\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
      if (!key) throw new AuthenticationError('Authentication credentials were not provided: send "Authorization: Bearer <token>".');
      // Digests of equal length, so the comparison takes the same time whatever the key.
      if (expected && timingSafeEqual(digest(key), expected)) return { kind: 'static' };
      if (!tokens) throw new AuthenticationError('Invalid token.');
      const principal = await tokens.authenticate(key);
      if (principal.audience !== undefined && principal.audience !== resource)
        throw new AuthenticationError('Token was not issued for this server.');
      checkToolServerRights(principal);
      return { kind: 'user', username: principal.username, superuser: principal.superuser, tokenId: principal.tokenId };
    },
  };
}
