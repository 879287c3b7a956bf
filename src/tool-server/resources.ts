import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, ListResourcesRequestSchema, McpError, type Resource } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from './tools/index.js';

const OPERATION_URI = 'openapi://operations/';
/** Resources per `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 100;

const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString())?.[1];
  if (offset === undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of the previous page');
  return Number(offset);
}

/**
 * The platform API's operations as resources, `openapi://operations/{operationId}`: each reads as
 * the endpoint schema tool's answer for it (JSON). `resources/list` is paged (McpServer's own list
 * would answer every operation at once and ignore the cursor); the template names them all.
 */
export function registerResources(server: McpServer, deps: ToolDeps): void {
  const endpoints = async () => (await deps.index.operations(deps.indexWaitMs)).endpoints.filter((endpoint) => endpoint.operationId);
  server.registerResource(
    'api-operation',
    new ResourceTemplate(`${OPERATION_URI}{operationId}`, { list: undefined }),
    {
      title: 'Platform API operation',
      description: 'How to form a request for one operation of the platform API: parameters, filters and body fields (JSON)',
      mimeType: 'application/json',
    },
    async (uri, { operationId }) => {
      const endpoint = (await endpoints()).find((candidate) => candidate.operationId === operationId);
      if (!endpoint) throw new McpError(ErrorCode.InvalidParams, `Resource not found: no operation ${String(operationId)}`);
      const schema = await deps.index.describe(endpoint.method, endpoint.path, deps.indexWaitMs);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(schema, null, 2) }] };
    },
  );
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const offset = offsetOf(request.params?.cursor);
    const all = await endpoints();
    const resources: Resource[] = all.slice(offset, offset + RESOURCE_PAGE_SIZE).map((endpoint) => ({
      uri: `${OPERATION_URI}${endpoint.operationId}`,
      name: endpoint.operationId,
      title: `${endpoint.method} ${endpoint.path}`,
      ...(endpoint.summary ? { description: endpoint.summary } : {}),
      mimeType: 'application/json',
    }));
    const next = offset + RESOURCE_PAGE_SIZE;
    return { resources, ...(next < all.length ? { nextCursor: cursorOf(next) } : {}) };
  });
}
