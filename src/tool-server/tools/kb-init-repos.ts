import { z } from 'zod';
import { platformTool } from './platform-tool.js';
import { KbRunEntry, summarizeRun } from './kb-update-repos.js';
import { indexProgress } from './progress.js';
import { KB_ADMINISTRATION } from './kb-list-repos.js';
import { success } from './tool-result.js';

export const KbInitInput = {
  force: z.boolean().optional().describe('Re-index every file even when the index is up to date (default false)'),
};

export const KbInitOutput = {
  status: z.enum(['success', 'partial']),
  message: z.string(),
  total_repos: z.number().describe('Enabled repositories'),
  total_documents: z.number().describe('Chunks in the index now'),
  time_taken: z.number().describe('Seconds'),
  repositories: z.array(KbRunEntry),
};

export const kbInitRepos = platformTool({
  name: 'kb_init_repos',
  title: 'Initialise the knowledge base',
  description:
    'Clones and indexes every enabled repository (those already indexed are only brought up to date unless force is set). Waits for the runs to finish, reporting the files indexed as progress when the call asks for it (progressToken).',
  input: KbInitInput,
  output: KbInitOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  chat: KB_ADMINISTRATION,
  async handle({ force }, deps, extra) {
    const started = performance.now();
    const onProgress = indexProgress(extra);
    const summary = summarizeRun(await deps.knowledge.update({ force: force ?? false, ...(onProgress ? { onProgress } : {}) }));
    const ok = summary.repositories.filter((repo) => repo.status !== 'failed').length;
    return success({
      status: summary.status,
      message: `Initialised ${ok}/${summary.repositories.length} repositories.`,
      total_repos: summary.repositories.length,
      total_documents: summary.documents,
      time_taken: Math.round(performance.now() - started) / 1000,
      repositories: summary.repositories,
    });
  },
});
