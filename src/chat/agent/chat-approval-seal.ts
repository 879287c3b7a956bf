import { authMode, perUserOAuth, type McpServerRecord } from '../../records/mcp-server.js';
import type { TokenService } from '../../records/auth/token.service.js';
import { CHAT_APPROVAL_META, planDigest, requestOfArguments, type ConfirmTokens } from '../../write-plans/confirm-tokens.js';
import type { WritePlan } from '../../write-plans/write-plan.js';

export interface ChatApprovalSealOptions {
  /** Sealed with PLATFORM_TOKEN_KEY, as the tool server's confirm tokens are. */
  tokens: Pick<ConfirmTokens, 'issue'>;
  /** Resolves a server's `auth_secret_key` to its value. */
  secrets: { resolve(name: string): Promise<string> };
  /** This service's API tokens: whose a key is. */
  keys: Pick<TokenService, 'authenticate'>;
  /** How long an approval stays good: it is issued just before its call. */
  ttlMs: number;
}

/**
 * The user's approval of a write in the chat, sealed for this service's own tool server (see
 * ConfirmTokens): bound to the plan they approved, to the caller the server sees and to a short
 * expiry, good once. The server checks it as it checks a confirm token, so it does not ask the user
 * again, and refuses the write if its plan at call time is not the approved one. Only a server
 * sharing the key can open it.
 */
export class ChatApprovalSeal {
  constructor(private readonly options: ChatApprovalSealOptions) {}

  /**
   * The call's `_meta` with its approval; none when the server's record does not reach it as a user
   * of this service (the server then asks as it would anyone). `turnKey`: the turn's delegated key.
   */
  async meta(
    server: McpServerRecord,
    turnKey: string | undefined,
    args: Record<string, unknown>,
    plan: WritePlan,
  ): Promise<Record<string, string> | undefined> {
    const request = requestOfArguments(args);
    const caller = request ? await this.callerOf(server, turnKey) : undefined;
    if (!request || caller === undefined) return undefined;
    const { token } = this.options.tokens.issue('chat-approval', planDigest(request, plan), caller, this.options.ttlMs);
    return { [CHAT_APPROVAL_META]: token };
  }

  /**
   * Who the server's calls reach the tool server as (`user:<name>`, as it binds confirmations): the
   * holder of its secret when that is an API token of this service; with per-user OAuth, the turn's user.
   */
  private async callerOf(server: McpServerRecord, turnKey: string | undefined): Promise<string | undefined> {
    try {
      const key = perUserOAuth(server)
        ? turnKey
        : authMode(server) === 'secret' && server.auth_secret_key
          ? await this.options.secrets.resolve(server.auth_secret_key)
          : undefined;
      return key === undefined ? undefined : `user:${(await this.options.keys.authenticate(key)).username}`;
    } catch {
      // Not a key of this service (or its secret is gone): no approval goes, the server asks.
      return undefined;
    }
  }
}
