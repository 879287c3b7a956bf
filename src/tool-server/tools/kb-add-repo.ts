import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolDeps } from './deps.js';
import { KbRepositoryEntry } from './kb-list-repos.js';
import { failure, success } from './tool-result.js';

export const KbAddInput = {
  repo: z.string().min(3).max(201).describe('Repository as owner/name, e.g. nautobot/nautobot-app-golden-config'),
  description: z.string().max(500).optional().describe('What the repository is about'),
  branch: z.string().max(200).optional().describe('Branch to index (default main)'),
};

export const KbAddOutput = {
  status: z.literal('success'),
  message: z.string(),
  repository: KbRepositoryEntry,
  job_id: z.string().describe('The indexing run started for it; platform_kb_repo_status shows its progress'),
};

export function registerKbAddRepoTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    `${deps.toolPrefix}_kb_add_repo`,
    {
      title: 'Add a knowledge-base repository',
      description: 'Adds a Git repository to the knowledge base and starts indexing it in the background.',
      inputSchema: KbAddInput,
      outputSchema: KbAddOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ repo, description, branch }) => {
      try {
        const { repository, job_id } = await deps.knowledge.addRepository({ name: repo, description, branch });
        return success({
          status: 'success' as const,
          message: `Added repository ${repository.name}; indexing has started.`,
          repository,
          job_id,
        });
      } catch (error) {
        return failure(error, deps.secrets);
      }
    },
  );
}
