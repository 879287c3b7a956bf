// Knowledge base at a million chunks (BENCH_CHUNKS, default 1,000,000; BENCH_REPOSITORIES, default
// 10): generated text (a vocabulary with a Zipf distribution; prose, code, configuration and lists)
// in files of ten chunks over several repositories, written through the lexical chunk store as
// index runs write it, on one machine (no Redis: the machine's index is the store) and for several
// machines (chunks in a private redis-server, a second machine's index a copy). Printed: sizes
// (chunks, files, bytes on disk, Redis memory), build time, the first search of a new machine (it
// copies everything), lexical search p50/p95 and resident memory of a separate reading process,
// updates of 10 and 100 changed files against the full build, and dense search at the same size on
// the embedded store (clustered 384-dimension vectors, the default model's): build time, p50/p95
// and memory of a reading process, recall@10 against an exact scan, the vector index's parameters.
// Run alone with `node --import tsx bench/knowledge-million.ts`.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LanceDbVectorStore, VECTOR_INDEX_SETTINGS } from '../src/embeddings/adapters/lancedb-vector-store.adapter.js';
import { loadConfig } from '../src/roles/config.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { openRedisConnection } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import type { ChunkToStore } from '../src/knowledge/chunk-store.port.js';
import { chunkId } from '../src/knowledge/index-pipeline.js';
import type { IndexState } from '../src/knowledge/index-state.js';
import { openKnowledgeBase } from '../src/roles/knowledge.js';
import { buildKnowledgeParts, knowledgeSharing, type KnowledgeParts } from '../src/knowledge/knowledge.wiring.js';
import { seeded } from '../test/support/seeded-random.js';
import type { ReaderReport, ReaderTask } from './support/knowledge-reader.js';
import { exactNearest, vectorId } from './support/exact-nearest.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHUNKS = Number(process.env.BENCH_CHUNKS || 1_000_000);
const REPOSITORIES = Number(process.env.BENCH_REPOSITORIES || 10);
const CHUNKS_PER_FILE = 10;
const PER_REPOSITORY = Math.ceil(CHUNKS / REPOSITORIES);
const VOCABULARY = 50_000;
const ZIPF_EXPONENT = 1.07;
const BATCH = 2_000;
const QUERIES = 320;
const WARMUP = 20;
/** The default embedding model's dimension (all-MiniLM-L6-v2). */
const DIMENSION = 384;
const RECALL_QUERIES = 100;
const KEY_PREFIX = 'bench';

/** Progress on stderr: the report is on stdout at the end. */
const progress = (message: string) => console.error(`${new Date().toISOString()} ${message}`);
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const repositoryName = (r: number) => `bench/repo-${String(r).padStart(2, '0')}`;

/** Words of 2 to 4 syllables, distinct, the most frequent first. */
function makeVocabulary(): string[] {
  const random = seeded(1);
  const onsets = 'b c d f g h k l m n p r s t v w z br cl dr fr gr pl st tr'.split(' ');
  const vowels = 'a e i o u ai ea ou'.split(' ');
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const syllables = 2 + Math.floor(random() * 3);
    words.add(
      Array.from(
        { length: syllables },
        () => onsets[Math.floor(random() * onsets.length)]! + vowels[Math.floor(random() * vowels.length)]!,
      ).join(''),
    );
  }
  return [...words];
}
const WORDS = makeVocabulary();

/** Zipf ranks by quantile: a uniform number's top 20 bits pick the rank, so drawing a word costs one lookup. */
const ZIPF = (() => {
  const weights = WORDS.map((_, rank) => 1 / (rank + 1) ** ZIPF_EXPONENT);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const table = new Int32Array(1 << 20);
  let rank = 0;
  let cumulative = weights[0]! / total;
  for (let slot = 0; slot < table.length; slot++) {
    while ((slot + 0.5) / table.length > cumulative && rank < WORDS.length - 1) cumulative += weights[++rank]! / total;
    table[slot] = rank;
  }
  return table;
})();

const changeMarker = (revision: number) => `rev${revision}marker`;

/** The text of one chunk (`revision` > 0: as a later commit changed it): prose, code, configuration or a list. */
function chunkText(index: number, revision: number): { context: string; content: string } {
  const random = seeded(index * 31 + revision * 1_000_003 + 7);
  const word = () => WORDS[ZIPF[Math.floor(random() * ZIPF.length)]!]!;
  const words = (count: number) => Array.from({ length: count }, word);
  const heading = `${word()} ${word()}`;
  // A changed chunk says so in a word of its own, which a search for the change finds.
  const lines: string[] = revision > 0 ? [`Changed in ${changeMarker(revision)}.`] : [];
  switch (index % 4) {
    case 0:
      for (let s = 0; s < 9; s++) {
        const sentence = words(8 + Math.floor(random() * 7)).join(' ');
        lines.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
      }
      return { context: `# ${heading}`, content: lines.join(' ') };
    case 1: {
      const name = `${word()}_${word()}`;
      lines.push(`def ${name}(${word()}, ${word()}=None):`, `    """${words(12).join(' ')}."""`);
      for (let l = 0; l < 10; l++) lines.push(`    ${word()}_${word()} = ${word()}.${word()}(${word()}, ${words(3).join('_')})`);
      lines.push(`    return ${word()}`);
      return { context: `def ${name}`, content: lines.join('\n') };
    }
    case 2:
      for (let l = 0; l < 14; l++) lines.push(`${word()}_${word()}: ${words(3 + Math.floor(random() * 4)).join(' ')}`);
      return { context: heading, content: lines.join('\n') };
    default:
      for (let l = 0; l < 10; l++) lines.push(`- ${words(6 + Math.floor(random() * 6)).join(' ')}`);
      return { context: `## ${heading}`, content: lines.join('\n') };
  }
}

/** Chunk `local` of repository `r` as a run writes it. */
function chunkToStore(r: number, local: number, revision = 0): ChunkToStore {
  const repository = repositoryName(r);
  const file = Math.floor(local / CHUNKS_PER_FILE);
  const filePath = `docs/${WORDS[file % 1_000]}/page-${file}.md`;
  const { context, content } = chunkText(r * PER_REPOSITORY + local, revision);
  const index = local % CHUNKS_PER_FILE;
  return {
    id: chunkId(repository, filePath, index),
    text: `${repository} ${filePath}\n${context}\n${content}`,
    chunk: {
      repository,
      file_path: filePath,
      file_type: 'markdown',
      start_line: index * 20 + 1,
      end_line: index * 20 + 18,
      commit: `r${revision}`,
      last_updated: '',
      content,
    },
  };
}

/** Questions as a user asks them: a few words of an existing chunk, common and rare, in other words around them. */
function makeQueries(count: number): string[] {
  const random = seeded(5);
  return Array.from({ length: count }, () => {
    const r = Math.floor(random() * REPOSITORIES);
    const chunk = chunkToStore(r, Math.floor(random() * PER_REPOSITORY))
      .chunk.content.split(/[^a-z]+/i)
      .filter((w) => w.length > 3);
    const picked = Array.from({ length: 3 + Math.floor(random() * 3) }, () => chunk[Math.floor(random() * chunk.length)]!);
    return `how do I ${picked.join(' ')}`;
  });
}

async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}
const mb = (bytes: number) => round(bytes / 1024 / 1024);

async function runReader(root: string, task: ReaderTask): Promise<ReaderReport> {
  const file = path.join(root, `reader-${task.kind}.json`);
  await writeFile(file, JSON.stringify(task));
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/support/knowledge-reader.ts'), file], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`reader failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ReaderReport;
}

/** Marks each repository indexed in the lexical store, as its run leaves it (with the version to catch up to, when shared). */
async function recordRuns(parts: KnowledgeParts, versions: Array<string | undefined>, counts: number[]): Promise<void> {
  const key = (await parts.lexical()).key;
  const now = new Date().toISOString();
  for (const [r, version] of versions.entries()) {
    const name = repositoryName(r);
    if (!(await parts.lists.list()).some((repo) => repo.name === name)) await parts.lists.add({ name, branch: 'main' });
    const state: IndexState = {
      state: 'indexed',
      files_done: 0,
      files_total: 0,
      started_at: now,
      updated_at: now,
      finished_at: now,
      store: key,
      commit: 'r0',
      indexed_at: now,
      documents: counts[r]!,
      ...(version === undefined ? {} : { version }),
    };
    await parts.state.runs.put(name, state);
  }
}

/** One run changing `files` files of the first repository (ten chunks each): the writer's time, and its version. */
async function changeFiles(parts: KnowledgeParts, files: number, revision: number): Promise<{ ms: number; version: string | undefined }> {
  const store = await parts.lexical();
  const started = performance.now();
  const writer = await store.writer(repositoryName(0));
  const stride = Math.floor(PER_REPOSITORY / CHUNKS_PER_FILE / files);
  for (let f = 0; f < files; f++) {
    const first = f * stride * CHUNKS_PER_FILE;
    await writer.upsert(Array.from({ length: CHUNKS_PER_FILE }, (_, k) => chunkToStore(0, first + k, revision)));
  }
  const version = await writer.commit();
  return { ms: Math.round(performance.now() - started), version };
}

async function lexical(root: string) {
  const redis = await startRedisProcess({ dir: path.join(root, 'redis'), args: ['--appendonly', 'no'] });
  const client = openRedisConnection(redis.url, { maxRetriesPerRequest: null, lazyConnect: false });
  try {
    const config = loadConfig({ EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false' });
    const own = path.join(root, 'one-machine');
    const machineA = path.join(root, 'machine-a');
    const machineB = path.join(root, 'machine-b');
    const local = await buildKnowledgeParts(config.knowledge, { dataDir: own, logger: silentLogger() });
    const shared = await buildKnowledgeParts(config.knowledge, {
      dataDir: machineA,
      logger: silentLogger(),
      sharing: knowledgeSharing(machineA, { client, keyPrefix: KEY_PREFIX }),
    });
    const [localStore, sharedStore] = [await local.lexical(), await shared.lexical()];
    const build = { generate_ms: 0, one_machine_ms: 0, redis_ms: 0 };
    const versions: Array<string | undefined> = [];
    const counts: number[] = [];
    const time = async (field: keyof typeof build, work: () => Promise<unknown>) => {
      const started = performance.now();
      const result = await work();
      build[field] += performance.now() - started;
      return result;
    };
    for (let r = 0; r < REPOSITORIES; r++) {
      const count = Math.min(PER_REPOSITORY, CHUNKS - r * PER_REPOSITORY);
      counts.push(count);
      const [ownWriter, sharedWriter] = [await localStore.writer(repositoryName(r)), await sharedStore.writer(repositoryName(r))];
      for (let start = 0; start < count; start += BATCH) {
        const batch = (await time('generate_ms', async () =>
          Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => chunkToStore(r, start + k)),
        )) as ChunkToStore[];
        await time('one_machine_ms', () => ownWriter.upsert(batch));
        await time('redis_ms', () => sharedWriter.upsert(batch));
      }
      await time('one_machine_ms', () => ownWriter.commit());
      versions.push((await time('redis_ms', () => sharedWriter.commit())) as string);
    }
    progress(`built ${CHUNKS} chunks: ${JSON.stringify(build)}`);
    await recordRuns(
      local,
      versions.map(() => undefined),
      counts,
    );
    await recordRuns(shared, versions, counts);
    const redisMemory = Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1] ?? 0);

    // A new machine's first search copies every repository from Redis into its own index.
    const env = { EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false', REDIS_KEY_PREFIX: KEY_PREFIX };
    const opened = await openKnowledgeBase(loadConfig({ ...env, DATA_DIR: machineB, REDIS_URL: redis.url }), silentLogger(), {
      redisUnreachable: 'require',
    });
    let started = performance.now();
    await opened.knowledge.search('how do I start', 5, false);
    const copyMs = Math.round(performance.now() - started);
    progress(`a new machine copied the chunks in ${copyMs} ms`);

    const queries = makeQueries(QUERIES);
    const oneMachine = await runReader(root, { kind: 'lexical', env: { ...env, DATA_DIR: own }, queries, warmup: WARMUP });
    const severalMachines = await runReader(root, {
      kind: 'lexical',
      env: { ...env, DATA_DIR: machineB, REDIS_URL: redis.url },
      queries,
      warmup: WARMUP,
    });

    // Updates: 10 then 100 changed files of one repository; on several machines, the writer's run and the next search elsewhere.
    const updates: Record<string, unknown> = {};
    for (const [files, revision] of [
      [10, 1],
      [100, 2],
    ] as const) {
      const alone = await changeFiles(local, files, revision);
      const written = await changeFiles(shared, files, revision);
      await recordRuns(shared, [written.version, ...versions.slice(1)], counts);
      started = performance.now();
      const answer = await opened.knowledge.search(`what changed in ${changeMarker(revision)}`, 5, false);
      const caughtUp = Math.round(performance.now() - started);
      if (answer.results[0]?.metadata.commit !== `r${revision}`)
        throw new Error(`the search after ${files} changed files missed the change`);
      updates[`files_${files}`] = { one_machine_ms: alone.ms, redis_write_ms: written.ms, other_machine_first_search_ms: caughtUp };
      progress(`updated ${files} files: ${JSON.stringify(updates[`files_${files}`])}`);
    }
    await opened.close();
    await local.close();
    await shared.close();
    const [own10, own100] = [updates.files_10, updates.files_100] as Array<{ one_machine_ms: number }>;
    return {
      sizes: {
        chunks: CHUNKS,
        files: counts.reduce((sum, count) => sum + Math.ceil(count / CHUNKS_PER_FILE), 0),
        repositories: REPOSITORIES,
        vocabulary: VOCABULARY,
        one_machine_index_mb: mb(await diskBytes(own)),
        copy_index_mb: mb(await diskBytes(machineB)),
        redis_used_memory_mb: mb(redisMemory),
      },
      build_ms: {
        one_machine: Math.round(build.one_machine_ms),
        redis_writes: Math.round(build.redis_ms),
        new_machine_first_search: copyMs,
        text_generation: Math.round(build.generate_ms),
      },
      search: { one_machine: oneMachine, several_machines: severalMachines, target_p95_ms: 50, target_rss_mb: 1024 },
      updates: {
        ...updates,
        full_build_ms: Math.round(build.one_machine_ms),
        ratio_100_to_10_files: round(own100!.one_machine_ms / own10!.one_machine_ms, 2),
        share_of_full_build_10_files: round(own10!.one_machine_ms / build.one_machine_ms, 5),
      },
    };
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

/** Clustered unit vectors shaped like sentence embeddings (see bench/knowledge-base.ts): 2,000 topics, a cosine of about 0.7 to their topic. */
function embeddingLikeVectors(seed: number): () => Float32Array {
  const random = seeded(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const unit = (v: Float32Array) => {
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    return v.map((x) => x / norm);
  };
  const topics = Array.from({ length: 2_000 }, () => unit(Float32Array.from({ length: DIMENSION }, gaussian)));
  const noise = 1 / Math.sqrt(DIMENSION);
  return () => unit(topics[Math.floor(random() * topics.length)]!.map((x) => x + noise * gaussian()));
}

async function dense(root: string) {
  const dir = path.join(root, 'vectors');
  const collection = 'kb_bench';
  const store = await LanceDbVectorStore.open(dir);
  await store.ensureCollection(collection, DIMENSION);
  const vector = embeddingLikeVectors(11);
  const stored = new Float32Array(CHUNKS * DIMENSION);
  let started = performance.now();
  for (let start = 0; start < CHUNKS; start += 20_000) {
    const points = Array.from({ length: Math.min(20_000, CHUNKS - start) }, (_, k) => {
      const v = vector();
      stored.set(v, (start + k) * DIMENSION);
      return { id: vectorId(start + k), vector: Array.from(v), payload: { file_path: `f${start + k}.py` } };
    });
    await store.upsert(collection, points);
  }
  const writeMs = Math.round(performance.now() - started);
  progress(`wrote ${CHUNKS} vectors in ${writeMs} ms`);
  started = performance.now();
  const report = await store.optimize(collection);
  const indexMs = Math.round(performance.now() - started);
  progress(`built the vector index in ${indexMs} ms`);
  const queries = Array.from({ length: QUERIES }, vector);
  const vectorsFile = path.join(root, 'queries.f32');
  await writeFile(vectorsFile, Buffer.from(Float32Array.from(queries.flatMap((q) => Array.from(q))).buffer));
  let found = 0;
  for (const query of queries.slice(0, RECALL_QUERIES)) {
    const exact = exactNearest(stored, CHUNKS, DIMENSION, query, 10);
    found += (await store.search(collection, Array.from(query), 10)).filter((hit) => exact.has(hit.id)).length;
  }
  await store.close();
  const reader = await runReader(root, { kind: 'dense', dir, collection, dimension: DIMENSION, vectorsFile, warmup: WARMUP, limit: 10 });
  return {
    chunks: CHUNKS,
    dimension: DIMENSION,
    bytes_on_disk_mb: mb(await diskBytes(dir)),
    write_ms: writeMs,
    index_build_ms: indexMs,
    index: { ...VECTOR_INDEX_SETTINGS, partitions: Math.round(Math.sqrt(CHUNKS)), indexed_points: report.indexed },
    search_limit_10: reader,
    recall_at_10: round(found / (RECALL_QUERIES * 10), 3),
    recall_queries: RECALL_QUERIES,
    targets: { p95_ms: 50, recall_at_10: 0.95 },
  };
}

const root = await mkdtemp(path.join(tmpdir(), 'aiops-bench-million-'));
try {
  const lexicalReport = await lexical(root);
  console.log(JSON.stringify({ lexical: lexicalReport }, null, 2));
  const denseReport = await dense(root);
  console.log(JSON.stringify({ dense: denseReport }, null, 2));
} finally {
  await rm(root, { recursive: true, force: true });
}
