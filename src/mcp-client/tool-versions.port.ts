/**
 * Port: a counter per MCP server, shared by every process, bumped whenever what the server offers
 * may have changed (its status flipped, or someone asked for a refresh). Tool lists and sessions
 * cached in any process are keyed by it, so a bump anywhere invalidates them everywhere.
 */
export interface ToolVersionStore {
  /** The current counter of each server (0 when never bumped). */
  get(serverIds: string[]): Promise<Map<string, number>>;
  bump(serverId: string): Promise<void>;
  /** Drops the counter of a deleted server. */
  forget(serverId: string): Promise<void>;
}
