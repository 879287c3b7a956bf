// Knowledge-base benchmark: indexing throughput on a generated 2,000-file repository (tiny
// transformers.js model and lexical-only), update with nothing changed, update with 10 files
// changed, lexical search latency with the chunks in files (one process) and in Redis (every
// machine), search p95 and recall@10 at 100,000 chunks on the embedded store (with its vector
// index build time), and the MCP process's peak RSS.
// Run alone with `node --import tsx bench/knowledge-base.ts`.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LanceDbVectorStore } from '../src/embeddings/adapters/lancedb-vector-store.adapter.js';
import { loadConfig } from '../src/roles/config.js';
import { openDenseParts } from '../src/embeddings/embeddings.wiring.js';
import { buildKnowledgeParts, knowledgeBase, knowledgeSharing, type KnowledgeSharing } from '../src/knowledge/knowledge.wiring.js';
import type { KnowledgeBase } from '../src/knowledge/knowledge-base.service.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { writeTinyModel } from '../test/endpoint-search/support/tiny-model.js';
import { createRemote, type TestRemote } from '../test/knowledge/support/git-remote.js';
import { startTestRedis } from '../test/support/redis.js';
import { seeded } from '../test/support/seeded-random.js';
import { directoryMegabytes } from './support/disk-size.js';
import { benchFigures, higher, informational, lower } from './support/figures.js';
import { exactNearest, vectorId } from './support/exact-nearest.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FILES = 2_000;
const SEARCH_CHUNKS = 100_000;
const DIMENSION = 384;
const figures = benchFigures(import.meta.url, {
  files: FILES,
  search_chunks: SEARCH_CHUNKS,
  dimension: DIMENSION,
  model: 'tiny (64 dims)',
});
const WORDS =
  'device rack site tenant interface cable circuit prefix address vlan platform job webhook config context region manufacturer role status tag'.split(
    ' ',
  );

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const word = (i: number) => WORDS[i % WORDS.length]!;

function generatedFile(i: number, revision = 0): [string, string] {
  const w = word(i);
  const v = word(i + 7);
  switch (i % 6) {
    case 0:
      return [
        `pkg/mod${i}.py`,
        `"""Module ${i} for ${w}."""\n\n\n${Array.from({ length: 6 }, (_, f) => `def ${w}_${f}_${i}(value):\n    """Return the ${v} of a ${w} (${revision})."""\n    total = value * ${f}\n    return total\n`).join('\n\n')}`,
      ];
    case 1:
      return [
        `docs/page${i}.md`,
        `# ${w} ${i}\n\n${`The ${w} holds ${v} records and links them to sites. `.repeat(8)}\n\n## Usage\n\n\`\`\`python\nclient.${w}.get(id=${i})\n\`\`\`\n\n## Notes ${revision}\n\n${`A ${v} note about ${w}. `.repeat(10)}\n`,
      ];
    case 2:
      return [
        `config/c${i}.yaml`,
        `${w}:\n  enabled: true\n  items: [${i}, ${revision}]\n${v}:\n  name: ${v}-${i}\n  description: ${`the ${v} setting `.repeat(5)}\n`,
      ];
    case 3:
      return [
        `data/d${i}.json`,
        JSON.stringify({ [w]: { id: i, revision }, [v]: Array.from({ length: 5 }, (_, k) => ({ k, name: `${v}${k}` })) }, null, 2),
      ];
    case 4:
      return [
        `notes/n${i}.txt`,
        `${`Paragraph about ${w} and ${v}. `.repeat(6)}\n\n${`Second paragraph ${revision} on ${w}. `.repeat(6)}\n`,
      ];
    default:
      return [
        `docs/s${i}.rst`,
        `${w} ${i}\n${'='.repeat(w.length + String(i).length + 1)}\n\n${`Text on ${v}. `.repeat(10)}\n\nDetails\n-------\n\n${`More on ${w} ${revision}. `.repeat(10)}\n`,
      ];
  }
}

async function indexRun(root: string, remote: TestRemote, env: Record<string, string>, label: string, sharing?: KnowledgeSharing) {
  const dataDir = path.join(root, `data-${label}`);
  const config = loadConfig({ GIT_BASE_URL: remote.baseUrl, ...env });
  const dense = await openDenseParts(config.vectors, dataDir);
  const parts = await buildKnowledgeParts(config.knowledge, { dataDir, logger: silentLogger(), ...dense, ...(sharing ? { sharing } : {}) });
  await parts.lists.add({ name: 'bench/generated', branch: 'main' });
  const first = await parts.indexer.index('bench/generated');
  const seconds = first.time_taken_ms / 1000;
  return { parts, dense, first, filesPerS: round(first.files_total / seconds), chunksPerS: round(first.documents / seconds) };
}

/**
 * Lexical search through the knowledge base (run states, versions, BM25, re-ranking), as the
 * tool server runs it: the first query after a run (which builds the BM25 index from the stored
 * chunks), then p50/p95 of 200 more.
 */
async function lexicalSearch(kb: KnowledgeBase) {
  const queries = Array.from({ length: 220 }, (_, i) => `how do I get the ${word(i)} of a ${word(i + 3)}`);
  let started = performance.now();
  await kb.search(queries[0]!, 5, false);
  const firstMs = performance.now() - started;
  const times: number[] = [];
  for (const [i, query] of queries.entries()) {
    started = performance.now();
    await kb.search(query, 5, false);
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    first_query_ms: round(firstMs),
    p50_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    samples: times.length,
  };
}

/** The same repository indexed lexically with its state and chunks in a private redis-server. */
async function lexicalSearchInRedis(root: string, remote: TestRemote) {
  const redis = await startTestRedis();
  try {
    const sharing = knowledgeSharing(path.join(root, 'data-redis'), { client: redis.client, keyPrefix: 'bench' });
    const run = await indexRun(root, remote, { EMBEDDING_MODEL: 'none' }, 'redis', sharing);
    return { index_files_per_s: run.filesPerS, ...(await lexicalSearch(knowledgeBase(run.parts, silentLogger()))) };
  } finally {
    await redis.destroy();
  }
}

/**
 * Unit vectors shaped like text embeddings: each lies around one of 2,000 topics (about 50 chunks
 * a topic) at a cosine of about 0.7 from it, so a query's nearest chunks are clearly nearer than the
 * rest (top-1 cosine about 0.55), as with a sentence model. Uniform random vectors would not do: in
 * 384 dimensions their nearest neighbours are barely nearer than any other point (0.22 against
 * 0.19), no index can find them and recall on them says nothing about search on real chunks.
 */
function embeddingLikeVectors(seed: number): () => Float32Array {
  const random = seeded(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const unit = (v: Float32Array) => {
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const topics = Array.from({ length: 2_000 }, () => unit(Float32Array.from({ length: DIMENSION }, gaussian)));
  const noise = 1 / Math.sqrt(DIMENSION);
  return () => {
    const topic = topics[Math.floor(random() * topics.length)]!;
    return unit(topic.map((x) => x + noise * gaussian()));
  };
}

/**
 * Search at 100,000 chunks: latency of an exhaustive scan (before optimize), the time optimize
 * takes to build the vector index, latency with it (p50/p95 of n_results=5, the tool's default),
 * and recall@10 of the indexed search against an exact scan over 200 queries.
 */
async function searchAt100k(root: string) {
  const store = await LanceDbVectorStore.open(path.join(root, 'search-store'));
  await store.ensureCollection('kb_bench', DIMENSION);
  const vector = embeddingLikeVectors(11);
  const stored = new Float32Array(SEARCH_CHUNKS * DIMENSION);
  for (let start = 0; start < SEARCH_CHUNKS; start += 10_000) {
    await store.upsert(
      'kb_bench',
      Array.from({ length: 10_000 }, (_, k) => {
        const v = vector();
        stored.set(v, (start + k) * DIMENSION);
        return {
          id: vectorId(start + k),
          vector: Array.from(v),
          payload: {
            repository: 'bench/generated',
            file_path: `f${start + k}.py`,
            file_type: 'python',
            start_line: 1,
            end_line: 20,
            commit: 'x',
            last_updated: '',
            content: `def f${start + k}(): pass`.padEnd(800, ' '),
          },
        };
      }),
    );
  }
  const latency = async (queries: number) => {
    const times: number[] = [];
    for (let i = 0; i < queries + 20; i++) {
      const query = Array.from(vector());
      const started = performance.now();
      await store.search('kb_bench', query, 5);
      if (i >= 20) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), samples: times.length };
  };
  const exhaustive = await latency(50);
  const started = performance.now();
  const report = await store.optimize('kb_bench');
  const buildMs = Math.round(performance.now() - started);
  const indexed = await latency(200);
  let found = 0;
  const recallQueries = 200;
  for (let i = 0; i < recallQueries; i++) {
    const query = vector();
    const exact = exactNearest(stored, SEARCH_CHUNKS, DIMENSION, query, 10);
    found += (await store.search('kb_bench', Array.from(query), 10)).filter((hit) => exact.has(hit.id)).length;
  }
  await store.close();
  return {
    ...indexed,
    chunks: SEARCH_CHUNKS,
    recall_at_10: round(found / (recallQueries * 10), 3),
    index: { kind: 'IVF_FLAT (cosine)', build_ms: buildMs, indexed_points: report.indexed },
    exhaustive_scan: exhaustive,
  };
}

async function mcpPeakRss(root: string, env: Record<string, string>): Promise<number> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'src/cli/run.ts'), 'mcp'],
    env: { ...(process.env as Record<string, string>), ...env, DATA_DIR: path.join(root, 'data-mcp'), LOG_LEVEL: 'error' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'platform_kb_add_repo', arguments: { repo: 'bench/generated', branch: 'main' } });
  await client.callTool({ name: 'platform_kb_update_repos', arguments: { repo: 'bench/generated' } });
  await client.callTool({ name: 'platform_kb_semantic_search', arguments: { query: 'return the rack of a device' } });
  const pid = transport.pid!;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  await client.close();
  return round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

const root = await mkdtemp(path.join(tmpdir(), 'aiops-bench-kb-'));
try {
  const files = Object.fromEntries(Array.from({ length: FILES }, (_, i) => generatedFile(i)));
  const remote = createRemote(root, 'bench/generated', files);
  const modelWords = Object.values(files)
    .join(' ')
    .match(/[A-Za-z]+/g)!
    .slice(0, 5_000);
  const modelDir = await writeTinyModel(path.join(root, 'tiny-model'), { words: modelWords, dimension: 64 });

  const lexical = await indexRun(root, remote, { EMBEDDING_MODEL: 'none' }, 'lexical');
  const lexicalInFiles = await lexicalSearch(knowledgeBase(lexical.parts, silentLogger()));
  const lexicalInRedis = await lexicalSearchInRedis(root, remote);
  const tiny = await indexRun(root, remote, { EMBEDDING_MODEL_PATH: modelDir }, 'tiny');
  const unchanged = await tiny.parts.indexer.index('bench/generated');
  // A new commit that leaves file contents alone: every file is read and hashed, nothing is embedded.
  remote.commit({ 'unrelated.bin': 'x' });
  const rehash = await tiny.parts.indexer.index('bench/generated');
  remote.commit(Object.fromEntries(Array.from({ length: 10 }, (_, k) => generatedFile(k * 97, 1))));
  const ten = await tiny.parts.indexer.index('bench/generated');
  await tiny.dense.vectors?.close();
  const search = await searchAt100k(root);
  const rssMb = await mcpPeakRss(root, { GIT_BASE_URL: remote.baseUrl, EMBEDDING_MODEL_PATH: modelDir });

  const report = {
    files: FILES,
    chunks: tiny.first.documents,
    index: {
      lexical: { files_per_s: lexical.filesPerS, chunks_per_s: lexical.chunksPerS, store: 'lexical' },
      tiny_model: { files_per_s: tiny.filesPerS, chunks_per_s: tiny.chunksPerS, store: 'lancedb', model: 'tiny (64 dims)' },
      ratio_lexical_to_tiny: round(lexical.filesPerS / tiny.filesPerS, 2),
    },
    update_unchanged_same_commit_ms: unchanged.time_taken_ms,
    update_unchanged_new_commit_ms: rehash.time_taken_ms,
    update_10_files_changed: {
      ms: ten.time_taken_ms,
      files_changed: ten.files_changed,
      chunks_reembedded: ten.chunks_added + ten.chunks_updated,
    },
    lexical_search: { chunks: lexical.first.documents, files: lexicalInFiles, redis: lexicalInRedis },
    search_100k_chunks: { ...search, store: 'lancedb', dimension: DIMENSION, target_p95_ms: 50 },
    mcp_peak_rss_mb: { value: rssMb, model: 'tiny (the default model is not downloaded in this run)' },
    disk_mb: {
      lexical_data_dir: directoryMegabytes(path.join(root, 'data-lexical')),
      tiny_model_data_dir: directoryMegabytes(path.join(root, 'data-tiny')),
      search_100k_store: directoryMegabytes(path.join(root, 'search-store')),
    },
    targets: { unchanged_update_ms: 2_000, ten_files_ms: '1000 + embedding', search_p95_ms: 50, rss_mb: 1_024 },
  };
  figures.print(JSON.stringify(report, null, 2), {
    chunks: informational(report.chunks, 'chunks'),
    'index.lexical.files_per_s': higher(lexical.filesPerS, 'files/s'),
    'index.lexical.chunks_per_s': higher(lexical.chunksPerS, 'chunks/s'),
    'index.tiny_model.files_per_s': higher(tiny.filesPerS, 'files/s'),
    'index.tiny_model.chunks_per_s': higher(tiny.chunksPerS, 'chunks/s'),
    'update.unchanged_same_commit': lower(unchanged.time_taken_ms, 'ms', { target: 2_000 }),
    'update.unchanged_new_commit': lower(rehash.time_taken_ms, 'ms'),
    'update.ten_files_changed': lower(ten.time_taken_ms, 'ms'),
    'update.ten_files_changed.chunks_reembedded': informational(ten.chunks_added + ten.chunks_updated, 'chunks'),
    'lexical_search.chunks': informational(lexical.first.documents, 'chunks'),
    'lexical_search.files.first_query': lower(lexicalInFiles.first_query_ms, 'ms'),
    'lexical_search.files.p50': lower(lexicalInFiles.p50_ms, 'ms'),
    'lexical_search.files.p95': lower(lexicalInFiles.p95_ms, 'ms'),
    'lexical_search.redis.index_files_per_s': higher(lexicalInRedis.index_files_per_s, 'files/s'),
    'lexical_search.redis.first_query': lower(lexicalInRedis.first_query_ms, 'ms'),
    'lexical_search.redis.p50': lower(lexicalInRedis.p50_ms, 'ms'),
    'lexical_search.redis.p95': lower(lexicalInRedis.p95_ms, 'ms'),
    'search_100k.p50': lower(search.p50_ms, 'ms'),
    'search_100k.p95': lower(search.p95_ms, 'ms', { target: 50 }),
    'search_100k.recall_at_10': higher(search.recall_at_10, 'share'),
    'search_100k.index_build': lower(search.index.build_ms, 'ms'),
    'search_100k.indexed_points': informational(search.index.indexed_points, 'points'),
    'search_100k.exhaustive_scan.p50': lower(search.exhaustive_scan.p50_ms, 'ms'),
    'search_100k.exhaustive_scan.p95': lower(search.exhaustive_scan.p95_ms, 'ms'),
    mcp_peak_rss: lower(rssMb, 'MB', { target: 1_024 }),
    'disk.lexical_data_dir': informational(report.disk_mb.lexical_data_dir, 'MB'),
    'disk.tiny_model_data_dir': informational(report.disk_mb.tiny_model_data_dir, 'MB'),
    'disk.search_100k_store': informational(report.disk_mb.search_100k_store, 'MB'),
  });
} finally {
  await rm(root, { recursive: true, force: true });
}
