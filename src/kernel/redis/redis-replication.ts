import { UnavailableError } from '../errors.js';
import type { RedisClient } from './redis-client.js';
import type { Span } from '../tracing/tracing.js';

/** How many replicas must hold a write before it counts as done, and how long to wait for them. */
export interface ReplicaWait {
  replicas: number;
  timeoutMs: number;
}

/** Writes count as done once the primary has them (a single Redis without replicas). */
export const NO_REPLICA_WAIT: ReplicaWait = { replicas: 0, timeoutMs: 0 };

type ScriptCall<T> = (...args: string[]) => T;

/**
 * Runs the script command `script` (defined on `redis` with defineCommand) with `args`. When
 * replicas are to be waited for, Redis WAIT follows it in one pipeline: on the same connection, so
 * it covers this write, and on a cluster to the node that holds the script's keys. Fewer replicas
 * than asked within the timeout: the write is on the primary, but a failover now could lose it, so
 * it is not confirmed (UnavailableError, which callers answer 503 or retry). A write of note gives
 * its span, which is told how many replicas had it.
 */
export async function confirmedWrite<T>(
  redis: RedisClient,
  wait: ReplicaWait,
  script: string,
  args: string[],
  span?: Pick<Span, 'setAttributes'>,
): Promise<T> {
  if (wait.replicas === 0) return (redis as unknown as Record<string, ScriptCall<Promise<T>>>)[script]!(...args);
  const pipeline = redis.pipeline();
  (pipeline as unknown as Record<string, ScriptCall<unknown>>)[script]!(...args);
  pipeline.wait(wait.replicas, wait.timeoutMs);
  const [[writeError, written] = [null, undefined], [waitError, copies] = [null, 0]] = (await pipeline.exec()) ?? [];
  if (writeError) throw writeError;
  if (waitError) throw waitError;
  span?.setAttributes({ 'aiops.redis.replicas_asked': wait.replicas, 'aiops.redis.replicas_acknowledged': Number(copies) });
  if (Number(copies) < wait.replicas) {
    throw new UnavailableError(`the store could not copy the write to ${wait.replicas} replica(s) within ${wait.timeoutMs} ms`, {
      remedy: 'Retry shortly: a failover or a lost replica is being dealt with (README, "Running on several machines").',
    });
  }
  return written as T;
}
