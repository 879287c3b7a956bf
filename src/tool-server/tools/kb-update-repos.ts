import { z } from 'zod';
import { UpstreamError } from '../../kernel/errors.js';
import type { UpdateOutcome } from '../../knowledge/knowledge-base.service.js';
import { platformTool } from './platform-tool.js';
import { indexProgress } from './progress.js';
import { KB_ADMINISTRATION } from './kb-list-repos.js';
import { success } from './tool-result.js';

export const KbRunEntry = z.object({
  name: z.string(),
  status: z.enum(['indexed', 'unchanged', 'failed']),
  documents: z.number().describe('Chunks of the repository in the index now'),
  new_documents: z.number(),
  updated_documents: z.number(),
  removed_documents: z.number(),
  error: z.string().optional(),
});

export const KbUpdateInput = {
  force: z.boolean().optional().describe('Re-chunk and re-embed every file, not only changed ones (default false)'),
  repo: z.string().min(3).max(201).optional().describe('Only this repository (owner/name); default: every enabled one'),
};

export const KbUpdateOutput = {
  status: z.enum(['success', 'partial']).describe('partial: some repositories failed (see repositories)'),
  updated: z.number().describe('Repositories whose index changed'),
  new_documents: z.number().describe('Chunks added'),
  updated_documents: z.number().describe('Chunks re-embedded in place'),
  removed_documents: z.number().describe('Chunks of changed or deleted files removed'),
  time_taken: z.number().describe('Seconds'),
  repositories: z.array(KbRunEntry),
};

/** The per-repository lines and totals of an update or init run; every repository failing is an error. */
export function summarizeRun(outcomes: UpdateOutcome[]) {
  const repositories = outcomes.map(({ repository, result, error }) => ({
    name: repository,
    status: result ? result.status : ('failed' as const),
    documents: result?.documents ?? 0,
    new_documents: result?.chunks_added ?? 0,
    updated_documents: result?.chunks_updated ?? 0,
    removed_documents: result?.chunks_removed ?? 0,
    ...(error ? { error } : {}),
  }));
  const failed = repositories.filter((repo) => repo.status === 'failed');
  if (failed.length > 0 && failed.length === repositories.length) {
    throw new UpstreamError(`indexing failed for every repository: ${failed.map((repo) => `${repo.name}: ${repo.error}`).join('; ')}`);
  }
  const sum = (key: 'documents' | 'new_documents' | 'updated_documents' | 'removed_documents') =>
    repositories.reduce((total, repo) => total + repo[key], 0);
  return {
    status: failed.length > 0 ? ('partial' as const) : ('success' as const),
    repositories,
    updated: repositories.filter(
      (repo) => repo.status === 'indexed' && repo.new_documents + repo.updated_documents + repo.removed_documents > 0,
    ).length,
    documents: sum('documents'),
    new_documents: sum('new_documents'),
    updated_documents: sum('updated_documents'),
    removed_documents: sum('removed_documents'),
  };
}

export const kbUpdateRepos = platformTool({
  name: 'kb_update_repos',
  title: 'Update knowledge-base repositories',
  description:
    'Pulls the repositories and re-indexes only files whose content changed (all files with force). Waits for the runs to finish, reporting the files indexed as progress when the call asks for it (progressToken).',
  input: KbUpdateInput,
  output: KbUpdateOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  chat: KB_ADMINISTRATION,
  async handle({ force, repo }, deps, extra) {
    const started = performance.now();
    const onProgress = indexProgress(extra);
    const { documents: _documents, ...summary } = summarizeRun(
      await deps.knowledge.update({ force: force ?? false, repository: repo, ...(onProgress ? { onProgress } : {}) }),
    );
    return success({ ...summary, time_taken: Math.round(performance.now() - started) / 1000 });
  },
});
