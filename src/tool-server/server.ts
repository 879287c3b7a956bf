import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerTools, type ToolDeps } from './tools/index.js';

export const SERVER_NAME = 'aiops-platform';

/**
 * A tool server for one connection. The index and client in `deps` are shared, so building a
 * server per connection (or per stateless HTTP request) costs only the registrations.
 */
export function createServer(deps: ToolDeps, version: string): { server: McpServer; cleanup: () => Promise<void> } {
  const server = new McpServer({ name: SERVER_NAME, version }, { capabilities: { tools: {} } });
  registerTools(server, deps);
  return { server, cleanup: () => server.close() };
}
