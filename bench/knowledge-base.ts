// Knowledge-base benchmark: indexing throughput on a generated 2,000-file repository (tiny
// transformers.js model and lexical-only), update with nothing changed, update with 10 files
// changed, search p95 at 100,000 chunks on the embedded store, and the MCP process's peak RSS.
// Run alone with `node --import tsx bench/knowledge-base.ts`.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LanceDbVectorStore } from '../shared/adapters/lancedb/lancedb-vector-store.js';
import { loadKnowledgeConfig } from '../shared/config/config.js';
import { buildKnowledgeParts, openDenseParts } from '../shared/knowledge/knowledge-runtime.js';
import { silentLogger } from '../shared/logging/logger.js';
import { writeTinyModel } from '../test/platform/support/tiny-model.js';
import { createRemote, type TestRemote } from '../test/knowledge/support/git-remote.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FILES = 2_000;
const SEARCH_CHUNKS = 100_000;
const DIMENSION = 384;
const WORDS = 'device rack site tenant interface cable circuit prefix address vlan platform job webhook config context region manufacturer role status tag'.split(' ');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const word = (i: number) => WORDS[i % WORDS.length]!;

function generatedFile(i: number, revision = 0): [string, string] {
  const w = word(i);
  const v = word(i + 7);
  switch (i % 6) {
    case 0:
      return [`pkg/mod${i}.py`, `"""Module ${i} for ${w}."""\n\n\n${Array.from({ length: 6 }, (_, f) => `def ${w}_${f}_${i}(value):\n    """Return the ${v} of a ${w} (${revision})."""\n    total = value * ${f}\n    return total\n`).join('\n\n')}`];
    case 1:
      return [`docs/page${i}.md`, `# ${w} ${i}\n\n${`The ${w} holds ${v} records and links them to sites. `.repeat(8)}\n\n## Usage\n\n\`\`\`python\nclient.${w}.get(id=${i})\n\`\`\`\n\n## Notes ${revision}\n\n${`A ${v} note about ${w}. `.repeat(10)}\n`];
    case 2:
      return [`config/c${i}.yaml`, `${w}:\n  enabled: true\n  items: [${i}, ${revision}]\n${v}:\n  name: ${v}-${i}\n  description: ${`the ${v} setting `.repeat(5)}\n`];
    case 3:
      return [`data/d${i}.json`, JSON.stringify({ [w]: { id: i, revision }, [v]: Array.from({ length: 5 }, (_, k) => ({ k, name: `${v}${k}` })) }, null, 2)];
    case 4:
      return [`notes/n${i}.txt`, `${`Paragraph about ${w} and ${v}. `.repeat(6)}\n\n${`Second paragraph ${revision} on ${w}. `.repeat(6)}\n`];
    default:
      return [`docs/s${i}.rst`, `${w} ${i}\n${'='.repeat(w.length + String(i).length + 1)}\n\n${`Text on ${v}. `.repeat(10)}\n\nDetails\n-------\n\n${`More on ${w} ${revision}. `.repeat(10)}\n`];
  }
}

async function indexRun(root: string, remote: TestRemote, env: Record<string, string>, label: string) {
  const dataDir = path.join(root, `data-${label}`);
  const knowledge = loadKnowledgeConfig({ GIT_BASE_URL: remote.baseUrl, ...env });
  const dense = await openDenseParts(knowledge, dataDir);
  const parts = await buildKnowledgeParts(knowledge, { dataDir, logger: silentLogger(), ...dense });
  await parts.lists.add({ name: 'bench/generated', branch: 'main' });
  const first = await parts.indexer.index('bench/generated');
  const seconds = first.time_taken_ms / 1000;
  return { parts, dense, first, filesPerS: round(first.files_total / seconds), chunksPerS: round(first.documents / seconds) };
}

async function searchP95(root: string): Promise<{ p50: number; p95: number; samples: number; chunks: number }> {
  const store = await LanceDbVectorStore.open(path.join(root, 'search-store'));
  await store.ensureCollection('kb_bench', DIMENSION);
  let seed = 11;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648), seed / 2_147_483_648 - 0.5);
  const vector = () => {
    const v = Array.from({ length: DIMENSION }, random);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  for (let start = 0; start < SEARCH_CHUNKS; start += 10_000) {
    await store.upsert(
      'kb_bench',
      Array.from({ length: 10_000 }, (_, k) => ({
        id: `00000000-0000-5000-8000-${String(start + k).padStart(12, '0')}`,
        vector: vector(),
        payload: { repository: 'bench/generated', file_path: `f${start + k}.py`, file_type: 'python', start_line: 1, end_line: 20, commit: 'x', last_updated: '', content: `def f${start + k}(): pass`.padEnd(800, ' ') },
      })),
    );
  }
  const times: number[] = [];
  for (let i = 0; i < 220; i++) {
    const started = performance.now();
    await store.search('kb_bench', vector(), 5);
    if (i >= 20) times.push(performance.now() - started);
  }
  await store.close();
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), samples: times.length, chunks: SEARCH_CHUNKS };
}

async function mcpPeakRss(root: string, env: Record<string, string>): Promise<number> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'mcp/main.ts')],
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
  const modelWords = Object.values(files).join(' ').match(/[A-Za-z]+/g)!.slice(0, 5_000);
  const modelDir = await writeTinyModel(path.join(root, 'tiny-model'), { words: modelWords, dimension: 64 });

  const lexical = await indexRun(root, remote, { EMBEDDING_MODEL: 'none' }, 'lexical');
  const tiny = await indexRun(root, remote, { EMBEDDING_MODEL_PATH: modelDir }, 'tiny');
  const unchanged = await tiny.parts.indexer.index('bench/generated');
  // A new commit that leaves file contents alone: every file is read and hashed, nothing is embedded.
  remote.commit({ 'unrelated.bin': 'x' });
  const rehash = await tiny.parts.indexer.index('bench/generated');
  remote.commit(Object.fromEntries(Array.from({ length: 10 }, (_, k) => generatedFile(k * 97, 1))));
  const ten = await tiny.parts.indexer.index('bench/generated');
  await tiny.dense.vectors?.close();
  const search = await searchP95(root);
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
    update_10_files_changed: { ms: ten.time_taken_ms, files_changed: ten.files_changed, chunks_reembedded: ten.chunks_added + ten.chunks_updated },
    search_100k_chunks_ms: { ...search, store: 'lancedb', dimension: DIMENSION, target_p95_ms: 50 },
    mcp_peak_rss_mb: { value: rssMb, model: 'tiny (the default model is not downloaded in this run)' },
    targets: { unchanged_update_ms: 2_000, ten_files_ms: '1000 + embedding', search_p95_ms: 50, rss_mb: 1_024 },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await rm(root, { recursive: true, force: true });
}
