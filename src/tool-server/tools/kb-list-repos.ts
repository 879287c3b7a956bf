import { z } from 'zod';
import { platformTool, type ChatOffer } from './platform-tool.js';
import { success } from './tool-result.js';

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

/**
 * Why chat turns do not get the knowledge base's administration tools: over the tool server they
 * act with the service's rights, where the API checks the asking user's.
 */
export const KB_ADMINISTRATION: ChatOffer = {
  offered: false,
  because:
    "knowledge-base administration acts with the service's rights, not the asking user's (the API checks ai_ops.view_kb to list repositories and their status, ai_ops.change_kb to change them); a turn searches the knowledge base",
};

export const KbListOutput = {
  repositories: z.array(KbRepositoryEntry).describe('Sorted by priority, then name'),
  total_count: z.number(),
};

export const kbListRepos = platformTool({
  name: 'kb_list_repos',
  title: 'List knowledge-base repositories',
  description: 'Lists the Git repositories of the knowledge base: the official ones and those added by users.',
  input: {},
  output: KbListOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  chat: KB_ADMINISTRATION,
  async handle(_args, deps) {
    const repositories = await deps.knowledge.listRepositories();
    return success({ repositories, total_count: repositories.length });
  },
});
