import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Permission } from '../../records/auth/permissions.js';
import type { ToolDeps } from './deps.js';

/** Whether chat turns get a tool among their built-in tools, or why they do not. */
export type ChatOffer = { offered: true } | { offered: false; because: string };

/**
 * Everything about one tool of the platform tool server, in its own file: registration (`aiops mcp`)
 * and the built-in tools of chat turns both read these, from the one list in `index.ts`.
 */
export interface PlatformTool<Input extends z.ZodRawShape = z.ZodRawShape> {
  /** The name after the tool prefix (`platform_` + name). */
  name: string;
  /** Published without the prefix: its name came before the prefix did, and agents are configured with it. */
  unprefixed?: true;
  title: string;
  description: string;
  input: Input;
  /** Every structured answer matches it; hosts check (see `success`). */
  output: z.ZodRawShape;
  annotations: ToolAnnotations;
  chat: ChatOffer;
  /**
   * What a chat turn's user needs besides chatting to call it. Over MCP every tool needs only the
   * right to use the tool server; the platform checks a request with the caller's own rights.
   */
  permission?: Permission;
  /** The call: `success(...)` for an answer; what it throws is answered by `failure` (see `registerTools`). */
  handle(
    args: z.output<z.ZodObject<Input>>,
    deps: ToolDeps,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): CallToolResult | Promise<CallToolResult>;
}

/** A tool's definition with its handler's arguments typed by its input schema. */
export function platformTool<Input extends z.ZodRawShape>(tool: PlatformTool<Input>): PlatformTool<Input> {
  return tool;
}

/** The tool's published name. */
export function toolName(tool: Pick<PlatformTool, 'name' | 'unprefixed'>, prefix: string): string {
  return tool.unprefixed ? tool.name : `${prefix}_${tool.name}`;
}
