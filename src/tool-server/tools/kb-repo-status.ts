import { z } from 'zod';
import { platformTool } from './platform-tool.js';
import { KB_ADMINISTRATION } from './kb-list-repos.js';
import { success } from './tool-result.js';

export const KbStatusOutput = {
  repositories: z.array(
    z.object({
      name: z.string(),
      status: z.enum(['indexed', 'not_indexed', 'indexing', 'failed']),
      documents: z.number().describe('Chunks in the index'),
      last_indexed: z.string().nullable(),
      indexing: z.boolean().describe('A run is under way'),
      enabled: z.boolean(),
      commit: z.string().nullable().describe('Indexed commit'),
      progress: z.object({ files_done: z.number(), files_total: z.number() }).optional().describe('While indexing'),
      error: z.string().optional().describe('Why the last run failed'),
    }),
  ),
  total_documents: z.number(),
  indexing_active: z.boolean(),
};

export const kbRepoStatus = platformTool({
  name: 'kb_repo_status',
  title: 'Knowledge-base status',
  description:
    'Shows, per repository, whether it is indexed, how many chunks it has, when it was last indexed and the progress of a run under way.',
  input: {},
  output: KbStatusOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  chat: KB_ADMINISTRATION,
  async handle(_args, deps) {
    return success({ ...(await deps.knowledge.status()) });
  },
});
