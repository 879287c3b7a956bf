import type { EventEmitter } from 'node:events';
import { Queue, QueueEvents, type QueueEventsOptions } from 'bullmq';
import type { JobKind, JobOf } from '../jobs/job-kind.js';
import type { JobEvent, JobOutcome, JobSnapshot, JobState } from '../jobs/job-queue.port.js';
import type { JobPolicy } from '../jobs/queue-definition.js';
import type { Logger } from '../logging/logger.js';
import { isClustered, type RedisClient } from '../redis/redis-client.js';
import { translateRedisError } from '../redis/redis-errors.js';
import { bullConnection, hearLateErrors, queuePrefix, stopChannel, STOPPED_MARK_MS, stoppedJobKey } from './bullmq-connection.js';
import { quietErrorLog } from './error-log.js';

export interface BullQueueOptions<J extends JobKind> {
  queueName: string;
  /** A client whose server (or servers) and login the queue's own connections copy. */
  connection: RedisClient;
  keyPrefix: string;
  /** Retry, backoff and retention for each job name: kept in one place, the queue's definition. */
  jobOptions: (name: J['name']) => JobPolicy;
  /**
   * Commands wait while Redis is away (a worker's own queue) instead of failing at once (the API's,
   * which then answers 503).
   */
  waitForRedis?: boolean;
  logger: Logger;
  /** Also read the queue's event stream (needed for waitFor and watch). */
  events: boolean;
  /** The failure reason waiters and watchers hear when a job is removed before it ran (see stop). */
  removedReason?: string;
}

/** The events of one job that waiters and watchers hear. */
const JOB_EVENTS = ['waiting', 'delayed', 'active', 'progress', 'completed', 'failed', 'removed'] as const;
type JobEventName = (typeof JOB_EVENTS)[number];
/** Hears one job's events: the event's name and what the reader decoded of it. */
type JobEventListener = (name: JobEventName, args: Record<string, unknown>) => void;

function stateOf(state: string): JobState {
  if (state === 'completed' || state === 'failed' || state === 'active') return state;
  return 'queued';
}

/**
 * The producer side of one BullMQ queue whose jobs are J: add (idempotent by job id or
 * deduplication id), schedule, read, wait for and watch jobs. The API uses it with
 * `enableOfflineQueue: false`, so a Redis outage fails fast.
 */
export class BullQueue<J extends JobKind> {
  private readonly queue: Queue;
  /** Our own producer connection: BullMQ leaves a connection it was given open, and we close it. */
  private readonly producer: RedisClient;
  private readonly events?: QueueEvents;
  /** What the event reader copies its connection from (BullMQ makes a blocking one of its own). */
  private readonly eventsTemplate?: RedisClient;
  /** Settles every pending waitFor; closing answers them with null (not finished here). */
  private readonly waiters = new Set<(outcome: null) => void>();
  /** The listeners of each job's events, by job id (see listen). */
  private readonly perJob = new Map<string, Set<JobEventListener>>();
  /** Resolves once the event reader's starting point is fixed (see startEvents). */
  private readonly eventsStarted?: Promise<void>;

  constructor(private readonly options: BullQueueOptions<J>) {
    const prefix = queuePrefix(options.keyPrefix, options.queueName, isClustered(options.connection));
    this.producer = bullConnection(options.connection, options.waitForRedis ? 'worker' : 'producer');
    this.producer.on('error', () => {
      // Reported once by the queue's own error listener below.
    });
    this.queue = new Queue(options.queueName, { connection: this.producer, prefix });
    hearLateErrors(this.queue);
    this.queue.on('error', quietErrorLog(options.logger, 'queue error', { queue: options.queueName }));
    if (options.events) {
      this.eventsTemplate = bullConnection(options.connection, 'worker');
      this.eventsTemplate.on('error', () => {
        // Reported once by the event reader's own error listener below.
      });
      this.events = new QueueEvents(options.queueName, { connection: this.eventsTemplate, prefix, autorun: false });
      hearLateErrors(this.events);
      this.events.on('error', quietErrorLog(options.logger, 'queue events error', { queue: options.queueName }));
      // One listener per event name, which hands each event to its job's listeners: a job's waiters
      // cost a map entry, not listeners of their own on the reader (added and removed for every job).
      for (const name of JOB_EVENTS) this.events.on(name, (args: Record<string, unknown>) => this.dispatch(name, args));
      this.events.setMaxListeners(0);
      this.eventsStarted = startEvents(this.events, this.queue, this.eventsTemplate);
    }
  }

  /** Resolves once the queue is connected and its event reader hears every event from now on. */
  async ready(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.events?.waitUntilReady(), this.eventsStarted]);
  }

  async add(item: JobOf<J>, jobId: string): Promise<void> {
    await translateRedisError(this.queue.add(item.name, item.data, { ...this.options.jobOptions(item.name), jobId }));
  }

  /**
   * Adds `item` unless a job with the same deduplication id is queued or running (BullMQ frees the
   * id when its job finishes or is removed); resolves to the id of the job that runs, ours or that one.
   */
  async addDeduplicated(item: JobOf<J>, jobId: string, deduplicationId: string): Promise<string> {
    const job = await translateRedisError(
      this.queue.add(item.name, item.data, { ...this.options.jobOptions(item.name), jobId, deduplication: { id: deduplicationId } }),
    );
    return job.id ?? jobId;
  }

  /**
   * Adds `item` at every time of the cron `pattern`, through the queue's scheduler named after the
   * job. Idempotent: any number of processes may set it (the last pattern set counts), and each
   * time's job is added once, by BullMQ, whoever set it.
   */
  async schedule(item: JobOf<J>, pattern: string): Promise<void> {
    // Connected first: BullMQ's scheduler awaits the connection inside a promise executor, where a failure would be lost.
    await translateRedisError(this.queue.waitUntilReady());
    await translateRedisError(
      this.queue.upsertJobScheduler(item.name, { pattern }, { name: item.name, data: item.data, opts: this.options.jobOptions(item.name) }),
    );
  }

  async get(jobId: string): Promise<(JobSnapshot<J['data'], J['result'], J['progress']> & { name: J['name'] }) | null> {
    // The state first: a job read before it finished and found finished after would have no result.
    const found = await translateRedisError(this.queue.getJobState(jobId));
    const job = found === 'unknown' ? undefined : await translateRedisError(this.queue.getJob(jobId));
    if (!job) return null;
    const state = stateOf(found);
    return {
      id: jobId,
      name: job.name,
      state,
      data: job.data as J['data'],
      ...(state === 'completed' ? { result: job.returnvalue as J['result'] } : {}),
      ...(state === 'failed' ? { failedReason: job.failedReason } : {}),
      // BullMQ stores 0 until the first report.
      ...(typeof job.progress === 'object' && job.progress !== null ? { progress: job.progress } : {}),
    };
  }

  /**
   * Resolves with the job's outcome, or null after `timeoutMs`, when `signal` aborts or when the
   * queue closes. Only events from now on count: call it before adding the job (or before reading
   * its state). The completion event travels on another connection than the add's reply, so a
   * listener set up after the add could be too late.
   */
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<J['result']> | null> {
    const { removedReason } = this.options;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: JobOutcome<J['result']> | null) => {
        if (settled) return;
        settled = true;
        this.waiters.delete(settle);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        unlisten();
        resolve(outcome);
      };
      const onAbort = () => settle(null);
      const timer = setTimeout(onAbort, timeoutMs);
      signal?.addEventListener('abort', onAbort);
      this.waiters.add(settle);
      const unlisten = this.listen(jobId, (name, args) => {
        if (name === 'completed') settle({ state: 'completed', result: args.returnvalue as J['result'] });
        else if (name === 'failed') settle({ state: 'failed', failedReason: args.failedReason as string });
        else if (name === 'removed') settle(removedReason === undefined ? null : { state: 'failed', failedReason: removedReason });
      });
    });
  }

  watch(jobId: string, listener: (event: JobEvent<J['result'], J['progress']>) => void): () => void {
    const { removedReason } = this.options;
    return this.listen(jobId, (name, args) => {
      switch (name) {
        case 'waiting':
        case 'delayed':
          return listener({ type: 'queued' });
        case 'active':
          return listener({ type: 'active' });
        case 'progress':
          return listener({ type: 'progress', data: args.data as J['progress'] });
        case 'completed':
          return listener({ type: 'completed', result: args.returnvalue as J['result'] });
        case 'failed':
          return listener({ type: 'failed', failedReason: typeof args.failedReason === 'string' ? args.failedReason : '' });
        case 'removed':
          if (removedReason !== undefined) listener({ type: 'failed', failedReason: removedReason });
      }
    });
  }

  watchOutcomes(listener: (jobId: string, outcome: JobOutcome<J['result']>) => void): () => void {
    const events = this.requireEvents();
    const onCompleted = ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) =>
      listener(jobId, { state: 'completed', result: returnvalue as J['result'] });
    const onFailed = ({ jobId, failedReason }: { jobId: string; failedReason: string }) =>
      listener(jobId, { state: 'failed', failedReason });
    events.on('completed', onCompleted);
    events.on('failed', onFailed);
    return () => {
      events.off('completed', onCompleted);
      events.off('failed', onFailed);
    };
  }

  /**
   * Stops a job that has not finished: one no worker has started yet is removed (waiters and
   * watchers hear `removedReason`); a running one is signalled to every worker of the queue, and the
   * one running it aborts its processor's signal (see QueueWorker `stoppable`). One that ran before
   * and waits again (parked, or retrying) is marked stopped and run at once, so that a worker ends
   * it as stopped (its waiters hear the reason its processor gives) rather than it vanishing. Check
   * the job is not over first: a finished job would be removed too.
   */
  async stop(jobId: string): Promise<'removed' | 'signalled'> {
    const { keyPrefix, queueName } = this.options;
    const job = await translateRedisError(this.queue.getJob(jobId));
    if (!job?.attemptsStarted && (await translateRedisError(this.queue.remove(jobId))) === 1) return 'removed';
    await translateRedisError(this.producer.set(stoppedJobKey(keyPrefix, queueName, jobId), '1', 'PX', STOPPED_MARK_MS));
    await translateRedisError(this.producer.publish(stopChannel(keyPrefix, queueName), jobId));
    await this.resume(jobId);
    return 'signalled';
  }

  /** Runs a delayed (parked) job now; a job in any other state is left alone. */
  async resume(jobId: string): Promise<void> {
    const job = await translateRedisError(this.queue.getJob(jobId));
    if (!job || (await translateRedisError(job.getState())) !== 'delayed') return;
    // It may have left the delayed set since (its time came): then it runs anyway.
    await job.promote().catch(() => undefined);
  }

  /** Waiting, active, delayed, completed and failed counts (for status pages and tests). */
  counts(): Promise<Record<string, number>> {
    return translateRedisError(this.queue.getJobCounts());
  }

  /** The workers taking this queue's jobs now: BullMQ counts their named connections to Redis. */
  workers(): Promise<number> {
    return translateRedisError(this.queue.getWorkersCount());
  }

  /** Deletes every key of the queue (tests and benchmarks). */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }

  async close(): Promise<void> {
    for (const settle of [...this.waiters]) settle(null);
    if (this.events) await closeEvents(this.events);
    await this.queue.close();
    // Dropped rather than QUIT: a connection without an offline queue cannot send QUIT while Redis
    // is away or reconnecting, and nothing is left to flush on a producer.
    this.producer.disconnect();
    this.eventsTemplate?.disconnect();
  }

  private requireEvents(): EventEmitter {
    // A plain Error: a caller that waits on a queue opened without events is a bug of its wiring.
    if (!this.events) throw new Error(`queue ${this.options.queueName} was opened without its event reader`);
    return this.events;
  }

  /** Hands `jobId`'s events to `listener` (a function of its own: the same one twice listens once) from now on; returns the stop. */
  private listen(jobId: string, listener: JobEventListener): () => void {
    this.requireEvents();
    let listeners = this.perJob.get(jobId);
    if (!listeners) this.perJob.set(jobId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.perJob.get(jobId) === listeners) this.perJob.delete(jobId);
    };
  }

  private dispatch(name: JobEventName, args: Record<string, unknown>): void {
    const listeners = typeof args.jobId === 'string' ? this.perJob.get(args.jobId) : undefined;
    // A copy: a listener may stop (or start) listening meanwhile.
    if (listeners) for (const listener of [...listeners]) listener(name, args);
  }
}

/** What BullMQ keeps of an event reader's own connection: the copy it made of the one it was given. */
interface WithOwnConnection {
  connection?: { status?: string; _client?: RedisClient };
}

/**
 * Closes an event reader. BullMQ 5's close first waits for its connection's set-up, which one that
 * never reached Redis does not finish (and ioredis does not end a connection dropped between two
 * attempts): that close is started but not waited for, and the connection is dropped; there is
 * nothing to flush on a connection that never served.
 */
async function closeEvents(events: QueueEvents): Promise<void> {
  const connection = (events as unknown as WithOwnConnection).connection;
  const closing = events.close().catch(() => undefined);
  if (connection?.status === 'initializing') connection._client?.disconnect();
  else await closing;
}

/**
 * Starts the event reader after the last event in the stream now (read on the connection it copies).
 * Left to itself it starts wherever the stream ends when its first read reaches
 * Redis, which on a busy machine can come after a job was added and finished: that job's events
 * were lost to whoever waited for them. If the stream cannot be read, the reader starts as it would
 * have.
 */
async function startEvents(events: QueueEvents, queue: Queue, reader: RedisClient): Promise<void> {
  try {
    const [newest] = await reader.xrevrange(queue.toKey('events'), '+', '-', 'COUNT', 1);
    // QueueEvents reads this documented option when it starts; it is given here once known.
    (events.opts as QueueEventsOptions).lastEventId = newest?.[0] ?? '0-0';
  } catch (error) {
    if (!events.closing) events.emit('error', error as Error);
  } finally {
    if (!events.closing) events.run().catch((error: Error) => events.emit('error', error));
  }
}
