import type { ChatTools, ToolAnswer, ToolCallReview, ToolContext } from '../chat-tools.port.js';
import type { ToolDefinition } from '../providers/provider.port.js';

/**
 * The tools of a turn: the built-in platform tools first, under their own names, then those of
 * the registered MCP servers (which prefix a tool whose name a built-in one already has).
 */
export class CombinedChatTools implements ChatTools {
  constructor(
    private readonly builtin: ChatTools & { readonly names: ReadonlySet<string> },
    private readonly servers: ChatTools,
  ) {}

  async list(context: ToolContext): Promise<ToolDefinition[]> {
    const [own, theirs] = await Promise.all([this.builtin.list(context), this.servers.list(context)]);
    return [...own, ...theirs];
  }

  call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string | ToolAnswer> {
    return this.builtin.names.has(name) ? this.builtin.call(name, args, context) : this.servers.call(name, args, context);
  }

  review(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolCallReview> {
    return this.builtin.names.has(name) ? this.builtin.review(name, args, context) : this.servers.review(name, args, context);
  }
}
