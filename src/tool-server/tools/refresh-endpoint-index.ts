import { z } from 'zod';
import { platformTool } from './platform-tool.js';
import { success } from './tool-result.js';

export const RefreshOutput = {
  status: z.literal('success'),
  message: z.string(),
  endpoints_indexed: z.number().describe('Endpoints in the index now'),
  embedded: z.number().describe('Endpoints (re-)embedded because they are new or changed'),
  removed: z.number().describe('Endpoints removed because the description no longer has them'),
  time_taken: z.number().describe('Seconds'),
  search_mode: z.enum(['hybrid', 'lexical']),
};

export const refreshEndpointIndex = platformTool({
  name: 'refresh_endpoint_index',
  unprefixed: true,
  title: 'Refresh the endpoint index',
  description:
    "Re-reads the platform's OpenAPI description and updates the endpoint index (only new or changed endpoints are embedded again).",
  input: {},
  output: RefreshOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  chat: {
    offered: false,
    because: "it re-reads the platform's description for the whole service: an operator's task, not the asking user's",
  },
  async handle(_args, deps) {
    const result = await deps.index.refresh();
    return success({
      status: 'success' as const,
      message: result.unchanged ? 'The description is unchanged; the index is up to date.' : 'Endpoint index refreshed.',
      endpoints_indexed: result.endpointsIndexed,
      embedded: result.embedded,
      removed: result.removed,
      time_taken: result.timeTakenMs / 1000,
      search_mode: result.mode,
    });
  },
});
