import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { jobQueue } from '../kernel/bullmq/job-queue.adapter.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import type { Config } from './config.js';
import { KnowledgeBase } from '../knowledge/knowledge-base.service.js';
import { KnowledgeJobName } from '../knowledge/knowledge.jobs.js';
import { QueuedIndexRunner } from '../knowledge/queued-index-runner.js';
import { silentLogger, type Logger } from '../kernel/logging/logger.js';
import { openQueue, QueueName } from './job-catalogue.js';
import { connectRedis, describeRedis } from './redis.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';

import { buildKnowledgeParts, knowledgeBase, knowledgeSharing } from '../knowledge/knowledge.wiring.js';
import { openDenseParts, type DenseParts } from '../embeddings/embeddings.wiring.js';

/** Which knowledge base a command of its own works on, and that in words for its stderr. */
export interface KnowledgeLocation<C> {
  /** The configuration to open it with (see openKnowledgeBase). */
  config: C;
  /** `the service's, in the Redis at ...` or `this machine's own, in DATA_DIR/knowledge ...`. */
  description: string;
  /** Whether it is the service's (in Redis) rather than one of this machine's files. */
  shared: boolean;
}

/**
 * Where `aiops kb` and `aiops mcp` find the knowledge base, both alike: in the Redis REDIS_URL (or
 * REDIS_SENTINELS, REDIS_CLUSTER_NODES) names; with none set, in the Redis at the default address
 * when one answers there, as the service (`aiops start`) keeps it; otherwise in files under
 * DATA_DIR of this machine. The description never carries a Redis user name or password.
 */
export async function locateKnowledgeBase<C extends Pick<Config, 'redis' | 'dataDir'>>(config: C): Promise<KnowledgeLocation<C>> {
  const where = describeRedis(config.redis.topology);
  const jobs = "index work runs as jobs of the service's workers";
  if (config.redis.configured) return { config, shared: true, description: `the service's, in the Redis at ${where}; ${jobs}` };
  try {
    await (await connectRedis(config, silentLogger(), { role: 'request', whenUnreachable: 'require' })).close();
    return {
      config: { ...config, redis: { ...config.redis, configured: true } },
      shared: true,
      description: `the service's, in the Redis at ${where} (REDIS_URL is unset: the default address); ${jobs}`,
    };
  } catch {
    return {
      config,
      shared: false,
      description:
        `this machine's own, in ${path.join(config.dataDir, 'knowledge')}, not the service's: REDIS_URL is unset and no Redis answers ` +
        `at the default address ${where}; index work runs in this process`,
    };
  }
}

/** How long closing the knowledge base waits for its index queue to finish starting. */
const QUEUE_SETTLE_MS = 2_000;

/**
 * The knowledge base of a process that searches and administers it (the tool server, the chat
 * workers' built-in tools, `aiops kb`): with Redis (`redis`, the process's own client, or
 * REDIS_URL when configured) its state is in Redis and index work runs as `index` jobs; otherwise
 * both stay in this process and DATA_DIR. `dense`: the process's embedder and store when it has
 * them open already (they are then left open). `redisUnreachable`: what a Redis at REDIS_URL that
 * does not answer at start means (see connectRedis).
 */
export async function openKnowledgeBase(
  config: Pick<Config, 'redis' | 'knowledge' | 'vectors' | 'dataDir' | 'security'>,
  logger: Logger,
  { dense, redis: client, redisUnreachable }: { dense?: DenseParts; redis?: RedisClient; redisUnreachable: 'require' | 'tolerate' },
): Promise<{ knowledge: KnowledgeBase; close: () => Promise<void> }> {
  const { redis } = config;
  const connection =
    !client && redis.configured ? await connectRedis(config, logger, { role: 'request', whenUnreachable: redisUnreachable }) : undefined;
  const shared = client ?? connection?.client;
  const owned = dense ? undefined : await openDenseParts(config.vectors, config.dataDir);
  const sharing = knowledgeSharing(config.dataDir, shared && { client: shared, keyPrefix: redis.keyPrefix });
  const parts = await buildKnowledgeParts(config.knowledge, {
    dataDir: config.dataDir,
    logger,
    ...(dense ?? owned),
    sharing,
    outbound: OutboundPolicy.fromList(config.security.outboundAllow),
  });
  const queue = shared ? openQueue(QueueName.Index, { connection: shared, keyPrefix: redis.keyPrefix, logger, events: true }) : undefined;
  const runner = queue
    ? new QueuedIndexRunner(jobQueue(queue, KnowledgeJobName.Index, KnowledgeJobName.Purge), config.knowledge.jobWaitMs)
    : undefined;
  return {
    knowledge: knowledgeBase(parts, logger, runner),
    async close() {
      // A queue closed while it is still starting (`aiops kb status` answers within milliseconds)
      // reports its own start-up commands as errors; it settles first, for a moment at most (a
      // Redis gone meanwhile would never let it).
      if (queue) await Promise.race([queue.ready().catch(() => undefined), delay(QUEUE_SETTLE_MS, undefined, { ref: false })]);
      await queue?.close();
      await parts.close();
      await owned?.vectors?.close();
      await connection?.close();
    },
  };
}
