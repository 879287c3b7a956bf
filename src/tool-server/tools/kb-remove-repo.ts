import { z } from 'zod';
import { platformTool } from './platform-tool.js';
import { KB_ADMINISTRATION } from './kb-list-repos.js';
import { success } from './tool-result.js';

export const KbRemoveInput = {
  repo: z.string().min(3).max(201).describe('Repository as owner/name (user-added; official ones cannot be removed)'),
};

export const KbRemoveOutput = {
  status: z.literal('success'),
  message: z.string(),
  documents_deleted: z.number().describe('Chunks removed from the index'),
};

export const kbRemoveRepo = platformTool({
  name: 'kb_remove_repo',
  title: 'Remove a knowledge-base repository',
  description: 'Removes a user-added repository from the knowledge base, with every indexed chunk and its clone.',
  input: KbRemoveInput,
  output: KbRemoveOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  chat: KB_ADMINISTRATION,
  async handle({ repo }, deps) {
    const { repository, documents_deleted } = await deps.knowledge.removeRepository(repo);
    return success({ status: 'success' as const, message: `Removed repository ${repository}.`, documents_deleted });
  },
});
