import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolDeps } from './deps.js';
import { failure, success } from './tool-result.js';

export const RefreshOutput = {
  status: z.literal('success'),
  message: z.string(),
  endpoints_indexed: z.number().describe('Endpoints in the index now'),
  embedded: z.number().describe('Endpoints (re-)embedded because they are new or changed'),
  removed: z.number().describe('Endpoints removed because the description no longer has them'),
  time_taken: z.number().describe('Seconds'),
  search_mode: z.enum(['hybrid', 'lexical']),
};

export function registerRefreshEndpointIndexTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'refresh_endpoint_index',
    {
      title: 'Refresh the endpoint index',
      description:
        "Re-reads the platform's OpenAPI description and updates the endpoint index (only new or changed endpoints are embedded again).",
      inputSchema: {},
      outputSchema: RefreshOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      try {
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
      } catch (error) {
        return failure(error, deps.secrets);
      }
    },
  );
}
