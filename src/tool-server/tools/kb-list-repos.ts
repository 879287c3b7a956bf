import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolDeps } from './deps.js';
import { failure, success } from './tool-result.js';

export const KbRepositoryEntry = z.object({
  name: z.string().describe('owner/name'),
  description: z.string(),
  priority: z.number().describe('Lower is indexed first'),
  enabled: z.boolean(),
  branch: z.string().describe("HEAD: the remote's default branch"),
  file_patterns: z.array(z.string()).describe('Suffixes (.py) or file-name globs'),
  source: z.enum(['official', 'user']).describe('official: shipped with the service; user: added at run time'),
  url: z
    .string()
    .optional()
    .describe('Where it is cloned from, when not the configured Git host (a Git URL, or file:// for a local folder)'),
  secret: z.string().optional().describe('The name of the secret holding its credential'),
});

export const KbListOutput = {
  repositories: z.array(KbRepositoryEntry).describe('Sorted by priority, then name'),
  total_count: z.number(),
};

export function registerKbListReposTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    `${deps.toolPrefix}_kb_list_repos`,
    {
      title: 'List knowledge-base repositories',
      description: 'Lists the Git repositories of the knowledge base: the official ones and those added by users.',
      inputSchema: {},
      outputSchema: KbListOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      try {
        const repositories = await deps.knowledge.listRepositories();
        return success({ repositories, total_count: repositories.length });
      } catch (error) {
        return failure(error, deps.secrets);
      }
    },
  );
}
