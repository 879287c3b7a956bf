import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from './deps.js';
import { dynamicApiRequest } from './dynamic-api-request.js';
import { kbAddRepo } from './kb-add-repo.js';
import { kbInitRepos } from './kb-init-repos.js';
import { kbListRepos } from './kb-list-repos.js';
import { kbRemoveRepo } from './kb-remove-repo.js';
import { kbRepoStatus } from './kb-repo-status.js';
import { kbSemanticSearch } from './kb-semantic-search.js';
import { kbUpdateRepos } from './kb-update-repos.js';
import { openapiApiRequestSchema } from './openapi-api-request-schema.js';
import { openapiEndpointSchema } from './openapi-endpoint-schema.js';
import { toolName, type PlatformTool } from './platform-tool.js';
import { refreshEndpointIndex } from './refresh-endpoint-index.js';
import { failure } from './tool-result.js';

export type { ToolDeps } from './deps.js';
export { toolName, type PlatformTool };

/** Every tool of the platform tool server, in the order hosts list them. */
export const PLATFORM_TOOLS: readonly PlatformTool[] = [
  openapiApiRequestSchema,
  openapiEndpointSchema,
  dynamicApiRequest,
  refreshEndpointIndex,
  kbSemanticSearch,
  kbListRepos,
  kbAddRepo,
  kbRemoveRepo,
  kbUpdateRepos,
  kbInitRepos,
  kbRepoStatus,
];

/** A tool's call as registered: its arguments, then the request's context. */
export type ToolCall = (
  args: Record<string, unknown>,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

/**
 * Registers every tool of the platform tool server; a handler's error is its tool error (`failure`).
 * `around` wraps each call (the server's span); answers the names registered.
 */
export function registerTools(server: McpServer, deps: ToolDeps, around: (name: string, call: ToolCall) => ToolCall): Set<string> {
  const names = new Set<string>();
  for (const tool of PLATFORM_TOOLS) {
    const { title, description, input, output, annotations } = tool;
    const name = toolName(tool, deps.toolPrefix);
    names.add(name);
    const call: ToolCall = async (args, extra) => {
      try {
        return await tool.handle(args, deps, extra);
      } catch (error) {
        return failure(error, deps.secrets);
      }
    };
    server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations }, around(name, call));
  }
  return names;
}
