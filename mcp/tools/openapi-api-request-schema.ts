import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { EndpointDocument } from '../../shared/platform/endpoint-document.js';
import type { ToolDeps } from './deps.js';
import { failure, success } from './tool-result.js';

export const EndpointSearchInput = {
  query: z.string().min(1).max(2_000).describe('What you want to do or know, in plain words, e.g. "add a new router" or "free IPs in a subnet"'),
  n_results: z.number().int().min(1).max(50).optional().describe('How many endpoints to return (1 to 50; default 5)'),
};

export const EndpointSearchOutput = {
  results: z
    .array(
      z.object({
        method: z.string().describe('HTTP method'),
        path: z.string().describe('Request path to pass to the API request tool, e.g. /api/dcim/devices/{id}/'),
        description: z.string().describe('Summary or description from the OpenAPI document'),
        operation_id: z.string().describe('operationId from the OpenAPI document'),
        similarity_score: z.number().describe('0 to 1, higher is better'),
      }),
    )
    .describe('Best match first'),
  search_mode: z.enum(['hybrid', 'lexical']).describe('hybrid: words and embeddings; lexical: words only'),
  note: z.string().optional().describe('Why the search is lexical only, when it is'),
};

function describe(endpoint: EndpointDocument): string {
  const text = (endpoint.summary || endpoint.description).replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

export function registerOpenapiApiRequestSchemaTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    `${deps.toolPrefix}_openapi_api_request_schema`,
    {
      title: 'Find platform API endpoints',
      description:
        "Finds the platform REST API endpoints (method and path) that do what you describe, best first. Use it before the dynamic API request tool; network wording works (router, cabinet, subnet, DC, L3VPN).",
      inputSchema: EndpointSearchInput,
      outputSchema: EndpointSearchOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, n_results }) => {
      try {
        const timer = deps.metrics?.searchLatency.startTimer({ index: 'endpoints' });
        const outcome = await deps.index.find(query, n_results ?? deps.defaultResults, deps.indexWaitMs);
        timer?.();
        return success({
          results: outcome.results.map(({ endpoint, score }) => ({
            method: endpoint.method,
            path: endpoint.path,
            description: describe(endpoint),
            operation_id: endpoint.operationId,
            similarity_score: score,
          })),
          search_mode: outcome.mode,
          ...(outcome.note ? { note: outcome.note } : {}),
        });
      } catch (error) {
        return failure(error, deps.secrets);
      }
    },
  );
}
