import { z } from 'zod';
import type { EndpointDocument } from '../../endpoint-search/endpoint-document.js';
import { endpointPurpose } from '../../endpoint-search/endpoint-shape.js';
import { platformTool } from './platform-tool.js';
import { success } from './tool-result.js';

export const EndpointSearchInput = {
  query: z
    .string()
    .min(1)
    .max(2_000)
    .describe('What you want to do or know, in plain words, e.g. "add a new router" or "free IPs in a subnet"'),
  n_results: z.number().int().min(1).max(50).optional().describe('How many endpoints to return (1 to 50; default 5)'),
};

export const EndpointSearchOutput = {
  results: z
    .array(
      z.object({
        method: z.string().describe('HTTP method'),
        path: z.string().describe('Request path to pass to the API request tool, e.g. /api/dcim/devices/{id}/'),
        description: z
          .string()
          .describe('What the endpoint does: its summary, else a line from method and path plus the start of its description'),
        operation_id: z.string().describe('operationId from the OpenAPI document'),
        similarity_score: z.number().describe('0 to 1, higher is better'),
        required_fields: z
          .array(z.string())
          .optional()
          .describe('Writes: the body fields the request must carry (the schema tool tells types and related ids)'),
        filters: z.array(z.string()).optional().describe('List reads: the main filters, passed in params (the schema tool lists all)'),
      }),
    )
    .describe('Best match first'),
  search_mode: z.enum(['hybrid', 'lexical']).describe('hybrid: words and embeddings; lexical: words only'),
  note: z
    .string()
    .optional()
    .describe('Why the search is lexical only, when it is; that the platform is this service itself, when nothing matched well'),
};

/**
 * Below this best score nothing in the description answers the question well: on this service's own
 * API, a question about devices or sites scores about 0.2 while one about its records scores 0.45 or more.
 */
const WEAK_BEST_SCORE = 0.35;

function describe(endpoint: EndpointDocument): string {
  if (endpoint.summary) return endpoint.summary.replace(/\s+/g, ' ').trim();
  const sentence =
    endpoint.description
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=\.)\s/)[0] ?? '';
  const purpose = endpointPurpose(endpoint);
  const text = sentence ? `${purpose}. ${sentence}` : purpose;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export const openapiApiRequestSchema = platformTool({
  name: 'openapi_api_request_schema',
  title: 'Find platform API endpoints',
  description:
    'Finds the platform REST API endpoints (method and path) that do what you describe, best first, with the body fields a write must carry and the main filters of a list. Use it before the API request tool; for the full parameters and body of one endpoint use the endpoint schema tool. Network wording works (router, cabinet, subnet, DC, L3VPN).',
  input: EndpointSearchInput,
  output: EndpointSearchOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  chat: { offered: true },
  async handle({ query, n_results }, deps) {
    const timer = deps.metrics?.searchLatency.startTimer({ index: 'endpoints' });
    const outcome = await deps.index.find(query, n_results ?? deps.defaultResults, deps.indexWaitMs);
    timer?.();
    const weak = deps.selfPlatformNote !== undefined && (outcome.results[0]?.score ?? 0) < WEAK_BEST_SCORE;
    const note = [outcome.note, weak ? deps.selfPlatformNote : undefined].filter(Boolean).join('; ');
    return success({
      results: outcome.results.map(({ endpoint, score }) => ({
        method: endpoint.method,
        path: endpoint.path,
        description: describe(endpoint),
        operation_id: endpoint.operationId,
        similarity_score: score,
        ...(endpoint.requiredFields.length ? { required_fields: endpoint.requiredFields } : {}),
        ...(endpoint.filters.length ? { filters: endpoint.filters } : {}),
      })),
      search_mode: outcome.mode,
      ...(note ? { note } : {}),
    });
  },
});
