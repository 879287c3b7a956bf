import { z } from 'zod';
import { platformTool } from './platform-tool.js';
import { KB_ADMINISTRATION, KbRepositoryEntry } from './kb-list-repos.js';
import { success } from './tool-result.js';

export const KbAddInput = {
  repo: z
    .string()
    .min(3)
    .max(2_000)
    .describe(
      'Repository as owner/name on the configured Git host (e.g. nautobot/nautobot-app-golden-config), or a Git URL (https://host/group/name.git, ssh://host/group/name.git, git@host:group/name.git), or a local folder under KB_LOCAL_ROOTS',
    ),
  description: z.string().max(500).optional().describe('What the repository is about'),
  branch: z.string().max(200).optional().describe("Branch to index (default main for owner/name, the remote's default branch for a URL)"),
  name: z.string().max(201).optional().describe("For a URL: the owner/name to list it under (default: the URL's last two path segments)"),
  secret: z
    .string()
    .max(100)
    .optional()
    .describe('Superusers only: the name of the secret holding its credential, a token (https) or an SSH private key (ssh)'),
};

export const KbAddOutput = {
  status: z.literal('success'),
  message: z.string(),
  repository: KbRepositoryEntry,
  job_id: z.string().describe('The indexing run started for it; platform_kb_repo_status shows its progress'),
};

export const kbAddRepo = platformTool({
  name: 'kb_add_repo',
  title: 'Add a knowledge-base repository',
  description: 'Adds a Git repository to the knowledge base and starts indexing it in the background.',
  input: KbAddInput,
  output: KbAddOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  chat: KB_ADMINISTRATION,
  async handle({ repo, description, branch, name, secret }, deps) {
    const { repository, job_id } = await deps.knowledge.addRepository({ repo, name, description, branch, secret }, deps.writer);
    return success({
      status: 'success' as const,
      message: `Added repository ${repository.name}; indexing has started.`,
      repository,
      job_id,
    });
  },
});
