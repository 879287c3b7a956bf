import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { requestCompactly } from '../compact-request.js';
import { HTTP_METHODS } from '../../platform/platform.port.js';
import type { ToolDeps } from './deps.js';
import { failure, success } from './tool-result.js';

export const ApiRequestInput = {
  method: z.enum(HTTP_METHODS).describe('HTTP method'),
  path: z
    .string()
    .min(1)
    .max(2_000)
    .describe('Relative API path from the endpoint search, with ids filled in, e.g. /api/dcim/devices/ or /api/dcim/devices/5f1c.../'),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Query parameters (filters, limit, offset), e.g. {"site": "ams1", "limit": 50}'),
  body: z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .optional()
    .describe('JSON body for POST, PUT and PATCH'),
  fields: z
    .array(z.string().min(1).max(100))
    .max(50)
    .optional()
    .describe('Reads: keep only these fields of each object (id always stays), e.g. ["name", "status", "site"]'),
  brief: z.boolean().optional().describe('Reads: only what identifies each object (id, name, display, slug, address...)'),
};

export const ApiRequestOutput = {
  status: z.number().describe('HTTP status'),
  data: z
    .unknown()
    .describe('The JSON answer (or text); list answers carry count and results, without empty values, nested objects as {id, display}'),
  count: z.number().nullable().describe('Number of objects of a list answer (all pages), else null'),
  returned: z.number().optional().describe('Results in data, for a list answer'),
  next_offset: z.number().optional().describe('Pass as params offset (with limit) to get the results not shown'),
  note: z.string().optional().describe('What was left out and how to get it'),
  truncated: z.boolean().optional().describe('True when the answer was cut at PLATFORM_MAX_RESPONSE_BYTES'),
};

export function registerDynamicApiRequestTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    `${deps.toolPrefix}_dynamic_api_request`,
    {
      title: 'Call the platform API',
      description:
        'Sends one request to the platform REST API with the configured token and returns the answer. Paths are relative (from the endpoint search); writes change real data. List answers are compact and fit a budget: next_offset says where the rest starts; fields and brief make them smaller.',
      inputSchema: ApiRequestInput,
      outputSchema: ApiRequestOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ method, path, params, body, fields, brief }) => {
      try {
        const result = await requestCompactly(
          { client: deps.client, operation: (m, p) => deps.index.operation(m, p, deps.indexWaitMs), budgetChars: deps.answerBudgetChars },
          { method, path, params, body, fields, brief },
        );
        deps.logger.info('platform request', { method, path, status: result.status });
        return success({
          status: result.status,
          data: result.data,
          count: result.count,
          ...(result.returned !== undefined ? { returned: result.returned } : {}),
          ...(result.nextOffset !== undefined ? { next_offset: result.nextOffset } : {}),
          ...(result.note ? { note: result.note } : {}),
          ...(result.truncated ? { truncated: true } : {}),
        });
      } catch (error) {
        deps.logger.warn('platform request failed', { method, path, error: error instanceof Error ? error.message : String(error) });
        return failure(error, deps.secrets);
      }
    },
  );
}
