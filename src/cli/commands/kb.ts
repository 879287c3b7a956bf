import path from 'node:path';
import type { Config } from '../../roles/config.js';
import { commandLogger } from '../../kernel/logging/logger.js';
import type { IndexProgress } from '../../knowledge/index-runner.port.js';
import { DEFAULT_BRANCH } from '../../knowledge/git.port.js';
import type { KnowledgeBase } from '../../knowledge/knowledge-base.service.js';
import { OPERATOR_WRITER } from '../../knowledge/repository-admission.js';
import { locateKnowledgeBase, openKnowledgeBase } from '../../roles/knowledge.js';
import { writeTable } from '../table.js';

type Out = NodeJS.WriteStream | NodeJS.WritableStream;

/** A one-line bar redrawn in place (terminals only): `name [#####.....] 120/400 files`. */
function progressBar(out: Out, name: string): { update: (progress: IndexProgress) => void; done: () => void } {
  const tty = (out as NodeJS.WriteStream).isTTY === true;
  let drawn = false;
  return {
    update: ({ files_done, files_total }) => {
      if (!tty || files_total === 0) return;
      const width = 30;
      const filled = Math.round((files_done / files_total) * width);
      out.write(`\r${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${files_done}/${files_total} files`);
      drawn = true;
    },
    done: () => {
      if (drawn) out.write('\n');
    },
  };
}

/**
 * The knowledge base for an admin command: the service's when its Redis answers, this machine's
 * files otherwise (see locateKnowledgeBase), said on stderr. Logs go to stderr too: stdout carries the answer.
 */
async function withKnowledge<T>(config: Config, run: (kb: KnowledgeBase) => Promise<T>): Promise<T> {
  const logger = commandLogger('warn');
  const location = await locateKnowledgeBase(config);
  process.stderr.write(`knowledge base: ${location.description}\n`);
  const { knowledge, close } = await openKnowledgeBase(location.config, logger, { redisUnreachable: 'require' });
  try {
    return await run(knowledge);
  } finally {
    await close();
  }
}

export async function kbList(config: Config, out: Out): Promise<number> {
  const repos = await withKnowledge(config, (kb) => kb.listRepositories());
  writeTable(out, [
    ['NAME', 'SOURCE', 'PRIORITY', 'BRANCH', 'ENABLED', 'PATTERNS'],
    ...repos.map((r) => [r.name, r.source, String(r.priority), r.branch, r.enabled ? 'yes' : 'no', r.file_patterns.join(' ')]),
  ]);
  return 0;
}

export interface KbAddOptions {
  name?: string;
  description?: string;
  branch?: string;
  secret?: string;
}

/** `.`, `./docs`, `../netdocs`: a folder relative to where the command runs (owner/name never starts so). */
const RELATIVE_FOLDER = /^\.\.?(?:\/|$)/;

/** Adds owner/name, a Git URL or a local folder; the command acts as the operator (see OPERATOR_WRITER). */
export async function kbAdd(config: Config, repository: string, options: KbAddOptions, out: Out): Promise<number> {
  const repo = RELATIVE_FOLDER.test(repository) ? path.resolve(repository) : repository;
  const added = await withKnowledge(config, (kb) => kb.register({ repo, ...options }, OPERATOR_WRITER));
  const branch = added.branch === DEFAULT_BRANCH ? "the remote's default branch" : `branch ${added.branch}`;
  out.write(`added ${added.name}${added.url ? ` from ${added.url}` : ''} (${branch}); index it with: aiops kb update ${added.name}\n`);
  return 0;
}

export async function kbRemove(config: Config, name: string, out: Out): Promise<number> {
  const result = await withKnowledge(config, (kb) => kb.removeRepository(name));
  out.write(`removed ${result.repository} (${result.documents_deleted} chunks deleted)\n`);
  return 0;
}

/** Indexes one repository or every enabled one, one after the other, with a progress bar (the run in this process or in a worker). */
export async function kbUpdate(config: Config, name: string | undefined, options: { force?: boolean }, out: Out): Promise<number> {
  const force = Boolean(options.force);
  return withKnowledge(config, async (kb) => {
    const names = name ? [name] : (await kb.listRepositories()).filter((repo) => repo.enabled).map((repo) => repo.name);
    let failed = 0;
    for (const repo of names) {
      const bar = progressBar(out, repo);
      try {
        const r = await kb.index(repo, { force, onProgress: bar.update });
        bar.done();
        out.write(
          `${repo}: ${r.status}, ${r.documents} chunks (+${r.chunks_added} ~${r.chunks_updated} -${r.chunks_removed}), ${r.files_changed} files changed, ${(r.time_taken_ms / 1000).toFixed(1)} s\n`,
        );
      } catch (error) {
        bar.done();
        failed++;
        out.write(`${repo}: failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    return failed > 0 ? 1 : 0;
  });
}
export async function kbStatus(config: Config, options: { json?: boolean }, out: Out): Promise<number> {
  const status = await withKnowledge(config, (kb) => kb.status());
  if (options.json) {
    out.write(`${JSON.stringify(status, null, 2)}\n`);
    return 0;
  }
  writeTable(out, [
    ['NAME', 'STATUS', 'CHUNKS', 'LAST INDEXED', 'PROGRESS'],
    ...status.repositories.map((r) => [
      r.name,
      r.status,
      String(r.documents),
      r.last_indexed ?? '-',
      r.progress ? `${r.progress.files_done}/${r.progress.files_total}` : (r.error ?? ''),
    ]),
  ]);
  out.write(`total chunks: ${status.total_documents}${status.indexing_active ? ' (indexing)' : ''}\n`);
  return 0;
}

export interface KbSearchOptions {
  repo?: string;
  results?: number;
  json?: boolean;
}

/**
 * Searches as the tool platform_kb_semantic_search does (the same ranking), printing each hit's
 * file, lines, score and answering passage (cut as optimize_for_llm cuts it); --json prints the answer as the tool gives it.
 */
export async function kbSearch(config: Config, query: string, options: KbSearchOptions, out: Out): Promise<number> {
  const answer = await withKnowledge(config, (kb) =>
    kb.search(query, options.results ?? config.toolServer.defaultResults, true, options.repo),
  );
  if (options.json) {
    out.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  answer.results.forEach((hit, index) => {
    const { start_line, end_line } = hit.metadata;
    out.write(`${index + 1}. ${hit.repository} ${hit.file_path}:${start_line}-${end_line}  score ${hit.similarity_score.toFixed(3)}\n`);
    out.write(`${hit.content.replace(/^(?=.)/gm, '   ')}\n\n`);
  });
  const mode = answer.search_mode === 'lexical' ? 'lexical search' : 'dense search';
  out.write(
    `${answer.results.length} of ${answer.total_searched} chunks, ${mode}, ${answer.query_time.toFixed(3)} s${answer.note ? `; ${answer.note}` : ''}\n`,
  );
  return 0;
}
