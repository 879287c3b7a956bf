import type { Config } from '../../kernel/config/config.js';
import { createLogger, silentLogger, type Logger } from '../../kernel/logging/logger.js';
import type { IndexProgress } from '../../knowledge/index-runner.port.js';
import type { KnowledgeBase } from '../../knowledge/knowledge-base.service.js';
import { openKnowledgeBase } from '../../roles/knowledge.js';
import { connectRedis, describeRedis } from '../../roles/redis.js';

type Out = NodeJS.WriteStream | NodeJS.WritableStream;

function table(out: Out, rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    out.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}

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
 * The configuration to administer the service's knowledge base with. With REDIS_URL unset, the
 * service (`aiops start`) keeps it in the Redis at the default address: that one is used when it
 * answers, and otherwise this machine's files under DATA_DIR, which the command says.
 */
async function knowledgeConfig(config: Config, logger: Logger): Promise<Config> {
  if (config.redis.configured) return config;
  try {
    await (await connectRedis(config, silentLogger(), { role: 'request', whenUnreachable: 'require' })).close();
    return { ...config, redis: { ...config.redis, configured: true } };
  } catch {
    logger.warn(
      'no Redis answers at the default address (REDIS_URL is unset): working on the knowledge base in DATA_DIR/knowledge of this machine only',
      {
        redis: describeRedis(config.redis.topology),
        data_dir: config.dataDir,
      },
    );
    return config;
  }
}

/** The knowledge base for an admin command (see openKnowledgeBase). Logs go to stderr: stdout carries the answer. */
async function withKnowledge<T>(config: Config, run: (kb: KnowledgeBase) => Promise<T>): Promise<T> {
  const logger = createLogger({ level: 'warn', stream: 'stderr', defaultMeta: { role: 'cli' } });
  const { knowledge, close } = await openKnowledgeBase(await knowledgeConfig(config, logger), logger, { redisUnreachable: 'require' });
  try {
    return await run(knowledge);
  } finally {
    await close();
  }
}

export async function kbList(config: Config, out: Out): Promise<number> {
  const repos = await withKnowledge(config, (kb) => kb.listRepositories());
  table(out, [
    ['NAME', 'SOURCE', 'PRIORITY', 'BRANCH', 'ENABLED', 'PATTERNS'],
    ...repos.map((r) => [r.name, r.source, String(r.priority), r.branch, r.enabled ? 'yes' : 'no', r.file_patterns.join(' ')]),
  ]);
  return 0;
}

export async function kbAdd(config: Config, name: string, options: { description?: string; branch?: string }, out: Out): Promise<number> {
  const repo = await withKnowledge(config, (kb) => kb.register({ name, description: options.description, branch: options.branch }));
  out.write(`added ${repo.name} (branch ${repo.branch}); index it with: aiops kb update ${repo.name}\n`);
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
  table(out, [
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
