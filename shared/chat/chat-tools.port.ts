import type { Permission } from '../auth/permissions.js';
import type { ToolDefinition } from '../providers/provider.port.js';

/**
 * The asking user's rights for this turn: a delegated key for this service's API (minted per
 * turn, revoked when it ends) and what it allows. Lives in memory only: never logged or stored.
 */
export interface TurnCredential {
  key: string;
  superuser: boolean;
  permissions: ReadonlySet<Permission>;
  writeEnabled: boolean;
}

export interface ToolContext {
  userId: string;
  signal: AbortSignal;
  /** Absent for turns queued without a token (before delegation existed): tools acting for the user refuse. */
  credential?: TurnCredential;
}

/**
 * Port for the tools a chat turn may use (MCP servers plug in here). `call` answers the text the
 * model sees; a thrown error is shown to the model as the tool's failure, not as the turn's.
 */
export interface ChatTools {
  list(context: ToolContext): Promise<ToolDefinition[]>;
  call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string>;
}
