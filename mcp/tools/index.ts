import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolDeps } from './deps.js';
import { registerDynamicApiRequestTool } from './dynamic-api-request.js';
import { registerOpenapiApiRequestSchemaTool } from './openapi-api-request-schema.js';
import { registerRefreshEndpointIndexTool } from './refresh-endpoint-index.js';

export type { ToolDeps } from './deps.js';

/** Registers every tool of the platform tool server. */
export function registerTools(server: McpServer, deps: ToolDeps): void {
  registerOpenapiApiRequestSchemaTool(server, deps);
  registerDynamicApiRequestTool(server, deps);
  registerRefreshEndpointIndexTool(server, deps);
}
