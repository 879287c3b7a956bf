import { addAndWait, type JobOutcome } from '../chat/chat-queue.js';
import { ConflictError, NotFoundError, UnavailableError, UpstreamError, ValidationError } from '../errors.js';
import type { IndexResult } from './index-pipeline.js';
import { indexJobId, purgeJobId, type IndexRunner, type PurgeResult } from './index-runner.js';

export interface IndexJobData {
  repository: string;
  force: boolean;
}

export interface PurgeJobData {
  repository: string;
}

export type IndexJobItem = { name: 'kb-index'; data: IndexJobData } | { name: 'kb-purge'; data: PurgeJobData };

/** The producer side of the `index` queue that this runner needs. */
export interface IndexJobQueue {
  add(item: IndexJobItem, jobId: string): Promise<void>;
  /** Call before `add`: only events from then on count. */
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<unknown> | null>;
}

/** A failed job's reason is `<ErrorClass>: <message>`; the domain class comes back on this side. */
export function failureOf(failedReason: string): Error {
  const [, kind, message] = /^(\w+): ([\s\S]*)$/.exec(failedReason) ?? [undefined, '', failedReason];
  switch (kind) {
    case 'NotFoundError':
      return new NotFoundError(message!);
    case 'ConflictError':
      return new ConflictError(message!);
    case 'ValidationError':
      return ValidationError.field('repo', message!);
    case 'UnavailableError':
      return new UnavailableError(message!);
    default:
      return new UpstreamError(message!);
  }
}

/**
 * Index and purge work as `index` queue jobs with one deterministic id per repository and kind:
 * while a job for a repository is queued or running, another request joins it instead of adding
 * a second one. Waits up to `waitMs` for the worker.
 */
export class QueuedIndexRunner implements IndexRunner {
  readonly kind = 'queue';

  constructor(
    private readonly queue: IndexJobQueue,
    private readonly waitMs: number,
  ) {}

  /** Adds the job with `add` and waits for it (joining one already queued under the same id). */
  private async run<R>(jobId: string, add: () => Promise<void>): Promise<R> {
    const outcome = await addAndWait(this.queue, jobId, add, this.waitMs);
    if (!outcome) throw new UnavailableError(`job ${jobId} did not finish within ${Math.round(this.waitMs / 1000)} s; is an index worker running (aiops worker --queues index)? It stays queued`);
    if (outcome.state === 'failed') throw failureOf(outcome.failedReason);
    return outcome.result as R;
  }

  index(name: string, { force }: { force: boolean }): Promise<IndexResult> {
    return this.run<IndexResult>(indexJobId(name), async () => {
      await this.start(name, { force });
    });
  }

  async start(name: string, { force }: { force: boolean }): Promise<string> {
    const jobId = indexJobId(name);
    await this.queue.add({ name: 'kb-index', data: { repository: name, force } }, jobId);
    return jobId;
  }

  async purge(name: string): Promise<PurgeResult> {
    const jobId = purgeJobId(name);
    return this.run<PurgeResult>(jobId, () => this.queue.add({ name: 'kb-purge', data: { repository: name } }, jobId));
  }
}
