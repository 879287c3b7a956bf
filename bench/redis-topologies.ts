/**
 * Chat throughput on a Redis Cluster of three primaries (each with a replica) against one Redis,
 * in one run: the same API and chat worker in this process, the same instant OpenAI-protocol stub,
 * BENCH_TURNS turns (default 600) from BENCH_CONCURRENCY loops (default 16) on each, after a
 * warm-up. On the cluster every stored turn and record write waits for its replica (WAIT 1, the
 * default there); the single Redis has no replica to wait for. The failover figures (turns lost,
 * 5xx, seconds to recover) are printed by test/infra/redis-sentinel*.test.ts.
 *
 *   node --import tsx bench/redis-topologies.ts
 */
import os from 'node:os';
import { startChatHarness, type ChatHarness } from '../test/chat/chat-harness.js';
import { startTestRedis } from '../test/support/redis.js';
import { startTestCluster } from '../test/support/redis-topologies.js';
import { benchFigures, higher, lower } from './support/figures.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 600);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = Math.min(100, TURNS);
const figures = benchFigures(import.meta.url, { BENCH_TURNS: TURNS, BENCH_CONCURRENCY: CONCURRENCY });

/** Turns per second over `total` turns from CONCURRENCY loops, each loop a session of its own. */
async function drive(sut: ChatHarness, key: string, total: number): Promise<{ perSecond: number; failures: number }> {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      let session: string | undefined;
      while (next++ < total) {
        const reply = await sut.call('POST', '/plugins/ai-ops/api/chat/', {
          key,
          body: { message: 'where is r1?', ...(session ? { session_id: session } : {}) },
        });
        if (reply.status === 200) session = (reply.body as { session_id: string }).session_id;
        else failures++;
      }
    }),
  );
  return { perSecond: total / ((performance.now() - started) / 1_000), failures };
}

async function measure(sut: ChatHarness): Promise<{ perSecond: number; failures: number }> {
  await sut.model();
  const key = await sut.token('bench');
  await drive(sut, key, WARMUP);
  return drive(sut, key, TURNS);
}

const env = { CHAT_WORKER_CONCURRENCY: String(CONCURRENCY), CHAT_PROVIDER_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'error' };
const single = await startTestRedis();
const cluster = await startTestCluster();
try {
  const singleSut = await startChatHarness(single, { env, waitMs: 30_000 });
  const singleFigures = await measure(singleSut);
  await singleSut.close();
  const clusterSut = await startChatHarness(cluster, { env, waitMs: 30_000 });
  const clusterFigures = await measure(clusterSut);
  await clusterSut.close();
  const f = (n: number) => n.toFixed(1);
  console.log(
    `redis topologies: ${TURNS} chat turns, concurrency ${CONCURRENCY}, instant OpenAI-protocol stub, API and worker in one process, ${os.cpus().length} cores`,
  );
  figures.print(
    `  one Redis                         ${f(singleFigures.perSecond).padStart(7)} turns/s (failed: ${singleFigures.failures})`,
    {
      'one_redis.throughput': higher(singleFigures.perSecond, 'turns/s'),
      'one_redis.failed': lower(singleFigures.failures, 'turns', { target: 0 }),
    },
  );
  figures.print(
    `  cluster, 3 primaries + 3 replicas ${f(clusterFigures.perSecond).padStart(7)} turns/s (failed: ${clusterFigures.failures}; every write waits for its replica)`,
    {
      'cluster.throughput': higher(clusterFigures.perSecond, 'turns/s'),
      'cluster.failed': lower(clusterFigures.failures, 'turns', { target: 0 }),
    },
  );
  figures.print(`  cluster / one Redis               ${(clusterFigures.perSecond / singleFigures.perSecond).toFixed(2)}x`, {
    'cluster.throughput_over_one_redis': higher(clusterFigures.perSecond / singleFigures.perSecond, 'x'),
  });
} finally {
  await cluster.destroy();
  await single.destroy();
}
