import type { ToolDefinition } from '../providers/provider.js';

export interface ToolContext {
  userId: string;
  signal: AbortSignal;
}

/**
 * Port for the tools a chat turn may use (MCP servers plug in here). `call` answers the text the
 * model sees; a thrown error is shown to the model as the tool's failure, not as the turn's.
 */
export interface ChatTools {
  list(context: ToolContext): Promise<ToolDefinition[]>;
  call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string>;
}

