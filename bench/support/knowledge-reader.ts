// A reading process of the knowledge-million benchmark, started on its own so that its resident
// memory is a reading process's alone: it opens the knowledge base (or the vector store) as the
// service does, runs the queries it is given, and prints their latencies and its memory as JSON.
// Argument: a JSON file of `ReaderTask`.
import { readFileSync } from 'node:fs';
import { LanceDbVectorStore } from '../../src/embeddings/adapters/lancedb-vector-store.adapter.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { openKnowledgeBase } from '../../src/roles/knowledge.js';

export type ReaderTask =
  | { kind: 'lexical'; env: Record<string, string>; queries: string[]; warmup: number }
  | { kind: 'dense'; dir: string; collection: string; dimension: number; vectorsFile: string; warmup: number; limit: number };

export interface ReaderReport {
  first_ms: number;
  p50_ms: number;
  p95_ms: number;
  samples: number;
  /** Resident memory after the searches, and its peak over the process's life (MB). */
  rss_mb: number;
  peak_rss_mb: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (value: number) => Math.round(value * 10) / 10;

function memory(): { rss_mb: number; peak_rss_mb: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const mb = (field: string) => round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  return { rss_mb: mb('VmRSS'), peak_rss_mb: mb('VmHWM') };
}

async function timed(count: number, warmup: number, search: (i: number) => Promise<unknown>): Promise<ReaderReport> {
  let started = performance.now();
  await search(0);
  const first = performance.now() - started;
  const times: number[] = [];
  for (let i = 1; i < count; i++) {
    started = performance.now();
    await search(i);
    if (i > warmup) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    first_ms: round(first),
    p50_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    samples: times.length,
    ...memory(),
  };
}

const task = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ReaderTask;
if (task.kind === 'lexical') {
  const { knowledge, close } = await openKnowledgeBase(loadConfig(task.env), silentLogger(), { redisUnreachable: 'require' });
  const report = await timed(task.queries.length, task.warmup, (i) => knowledge.search(task.queries[i]!, 5, false));
  await close();
  console.log(JSON.stringify(report));
} else {
  const store = await LanceDbVectorStore.open(task.dir);
  const bytes = readFileSync(task.vectorsFile);
  const vectors = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const count = vectors.length / task.dimension;
  const query = (i: number) => Array.from(vectors.subarray(i * task.dimension, (i + 1) * task.dimension));
  const report = await timed(count, task.warmup, (i) => store.search(task.collection, query(i), task.limit));
  await store.close();
  console.log(JSON.stringify(report));
}
