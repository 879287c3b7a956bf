import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { HTTP_METHODS } from '../../shared/platform/platform-client.js';
import type { ToolDeps } from './deps.js';
import { failure, success } from './tool-result.js';

export const ApiRequestInput = {
  method: z.enum(HTTP_METHODS).describe('HTTP method'),
  path: z
    .string()
    .min(1)
    .max(2_000)
    .describe('Relative API path from the endpoint search, with ids filled in, e.g. /api/dcim/devices/ or /api/dcim/devices/5f1c.../'),
  params: z.record(z.string(), z.unknown()).optional().describe('Query parameters (filters, limit, offset), e.g. {"site": "ams1", "limit": 50}'),
  body: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional().describe('JSON body for POST, PUT and PATCH'),
};

export const ApiRequestOutput = {
  status: z.number().describe('HTTP status'),
  data: z.unknown().describe('The JSON answer (or text); list answers carry count, next, previous, results'),
  count: z.number().nullable().describe('Number of objects of a list answer, else null'),
  truncated: z.boolean().optional().describe('True when the answer was cut at PLATFORM_MAX_RESPONSE_BYTES'),
};

export function registerDynamicApiRequestTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    `${deps.toolPrefix}_dynamic_api_request`,
    {
      title: 'Call the platform API',
      description:
        'Sends one request to the platform REST API with the configured token and returns the answer. Paths are relative (from the endpoint search); writes change real data.',
      inputSchema: ApiRequestInput,
      outputSchema: ApiRequestOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ method, path, params, body }) => {
      try {
        const result = await deps.client.request({ method, path, params, body });
        deps.logger.info('platform request', { method, path, status: result.status });
        return success({ status: result.status, data: result.data, count: result.count, ...(result.truncated ? { truncated: true } : {}) });
      } catch (error) {
        deps.logger.warn('platform request failed', { method, path, error: error instanceof Error ? error.message : String(error) });
        return failure(error, deps.secrets);
      }
    },
  );
}
