/**
 * What the tool server's authorization server keeps between requests, shared by every instance:
 * registered clients, fetched client metadata documents, pending consents, authorization codes,
 * refresh tokens, and which client each access token was issued to. Values are JSON. Secrets (codes,
 * refresh tokens) are named by their hash only.
 */
export type OAuthStateKind = 'client' | 'document' | 'consent' | 'code' | 'refresh' | 'access';

export interface OAuthState {
  /** `ttlMs` undefined: kept until removed (a registered client). */
  put(kind: OAuthStateKind, id: string, value: unknown, ttlMs?: number): Promise<void>;
  get(kind: OAuthStateKind, id: string): Promise<unknown>;
  /** Reads and removes in one step: of two callers, only one gets the value (codes and refresh tokens are single-use). */
  take(kind: OAuthStateKind, id: string): Promise<unknown>;
}
