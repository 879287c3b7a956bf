import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolDeps } from './deps.js';
import { failure, success } from './tool-result.js';

export const KbRemoveInput = {
  repo: z.string().min(3).max(201).describe('Repository as owner/name (user-added; official ones cannot be removed)'),
};

export const KbRemoveOutput = {
  status: z.literal('success'),
  message: z.string(),
  documents_deleted: z.number().describe('Chunks removed from the index'),
};

export function registerKbRemoveRepoTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    `${deps.toolPrefix}_kb_remove_repo`,
    {
      title: 'Remove a knowledge-base repository',
      description: 'Removes a user-added repository from the knowledge base, with every indexed chunk and its clone.',
      inputSchema: KbRemoveInput,
      outputSchema: KbRemoveOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ repo }) => {
      try {
        const { repository, documents_deleted } = await deps.knowledge.removeRepository(repo);
        return success({ status: 'success' as const, message: `Removed repository ${repository}.`, documents_deleted });
      } catch (error) {
        return failure(error, deps.secrets);
      }
    },
  );
}
