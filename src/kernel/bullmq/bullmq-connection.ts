import type { EventEmitter } from 'node:events';
import { duplicateClient, type RedisClient } from '../redis/redis-client.js';

/**
 * BullMQ key prefix, one hash tag per queue on a cluster (BullMQ's scripts touch several keys of a
 * queue at once, and each queue's load then goes to the node of its own slot); one tag for every
 * queue on a single server, as before.
 */
export function queuePrefix(keyPrefix: string, queueName: string, clustered: boolean): string {
  return clustered ? `{${keyPrefix}:${queueName}}` : `{${keyPrefix}}`;
}

/** Where a queue's producers tell its workers to stop a running job (pub/sub; the message is the job id). */
export function stopChannel(keyPrefix: string, queueName: string): string {
  return `{${keyPrefix}}:${queueName}:stop`;
}

/** Marks a job that ran before (parked, retrying) stopped, for the worker that takes it next, whenever that is. */
export function stoppedJobKey(keyPrefix: string, queueName: string, jobId: string): string {
  return `{${keyPrefix}}:${queueName}:stopped:${jobId}`;
}

/** How long a stopped job's mark is kept: as long as a failed job is. */
export const STOPPED_MARK_MS = 24 * 3_600_000;

/**
 * A connection of BullMQ's own, copied from `template` (same server or servers, same login), and
 * connecting at once: BullMQ gives up for good on a connection (or a copy it makes for blocking
 * reads) that is not yet connecting and fails its first try, so a role started before its Redis
 * would never serve; one already connecting it waits for, however long Redis is away. `producer`: queues used on request paths fail fast while
 * Redis is away (no offline queue), so the API answers 503. `worker`: workers and event readers
 * wait for Redis (BullMQ requires maxRetriesPerRequest null on blocking connections). Blocking
 * reads outlast any command timeout of the template, and BullMQ batches its own commands.
 */
export function bullConnection(template: RedisClient, role: 'producer' | 'worker'): RedisClient {
  return duplicateClient(template, {
    lazyConnect: false,
    commandTimeout: undefined,
    connectionName: undefined,
    enableAutoPipelining: false,
    ...(role === 'producer'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: undefined }
      : { enableOfflineQueue: true, maxRetriesPerRequest: null }),
  });
}

/** What BullMQ keeps of its connections: `connection` (queues, readers, workers), `blockingConnection` (workers). */
interface WithConnections {
  connection?: EventEmitter;
  blockingConnection?: EventEmitter;
}

/**
 * BullMQ's connection drops all its listeners when it closes, yet the set-up of one that never
 * reached Redis fails only after that (its client ends then) and emits an error nobody hears,
 * which ends the process. Each connection of `owner` keeps a listener that hears such a late error.
 */
export function hearLateErrors(owner: object): void {
  const { connection, blockingConnection } = owner as WithConnections;
  for (const emitter of [connection, blockingConnection]) {
    if (!emitter) continue;
    const removeAll = emitter.removeAllListeners.bind(emitter);
    emitter.removeAllListeners = (event?: string | symbol) => {
      removeAll(event);
      if (event === undefined || event === 'error') emitter.on('error', () => {});
      return emitter;
    };
  }
}
