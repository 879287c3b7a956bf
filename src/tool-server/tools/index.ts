import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolDeps } from './deps.js';
import { registerDynamicApiRequestTool } from './dynamic-api-request.js';
import { registerKbAddRepoTool } from './kb-add-repo.js';
import { registerKbInitReposTool } from './kb-init-repos.js';
import { registerKbListReposTool } from './kb-list-repos.js';
import { registerKbRemoveRepoTool } from './kb-remove-repo.js';
import { registerKbRepoStatusTool } from './kb-repo-status.js';
import { registerKbSemanticSearchTool } from './kb-semantic-search.js';
import { registerKbUpdateReposTool } from './kb-update-repos.js';
import { registerOpenapiApiRequestSchemaTool } from './openapi-api-request-schema.js';
import { registerOpenapiEndpointSchemaTool } from './openapi-endpoint-schema.js';
import { registerRefreshEndpointIndexTool } from './refresh-endpoint-index.js';

export type { ToolDeps } from './deps.js';

/** Registers every tool of the platform tool server. */
export function registerTools(server: McpServer, deps: ToolDeps): void {
  registerOpenapiApiRequestSchemaTool(server, deps);
  registerOpenapiEndpointSchemaTool(server, deps);
  registerDynamicApiRequestTool(server, deps);
  registerRefreshEndpointIndexTool(server, deps);
  registerKbSemanticSearchTool(server, deps);
  registerKbListReposTool(server, deps);
  registerKbAddRepoTool(server, deps);
  registerKbRemoveRepoTool(server, deps);
  registerKbUpdateReposTool(server, deps);
  registerKbInitReposTool(server, deps);
  registerKbRepoStatusTool(server, deps);
}
