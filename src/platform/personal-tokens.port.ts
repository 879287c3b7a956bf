/**
 * Port: each user's own token for an external platform. Write-only towards users: the API stores,
 * describes (`configured`, `updated`) and removes one, and only the workers read it back.
 */
export interface PersonalTokenStore {
  set(userId: string, token: string): Promise<void>;
  get(userId: string): Promise<string | undefined>;
  describe(userId: string): Promise<{ configured: boolean; updated: string | null }>;
  remove(userId: string): Promise<void>;
}
