import { UnavailableError } from '../kernel/errors.js';
import { addAndWait } from '../kernel/jobs/add-and-wait.js';
import { jobIds, JobName } from '../kernel/jobs/catalogue.js';
import { failureError } from '../kernel/jobs/job-failure.js';
import type { JobQueue } from '../kernel/jobs/job-queue.port.js';
import type { IndexResult } from './index-pipeline.js';
import type { IndexRunner, PurgeResult } from './index-runner.port.js';

/** Port: the producer side of the `index` queue that this runner needs. */
export type IndexJobQueue = Pick<JobQueue<JobName.KbIndex | JobName.KbPurge>, 'add' | 'waitFor'>;

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
    if (!outcome) {
      throw new UnavailableError(`job ${jobId} did not finish within ${Math.round(this.waitMs / 1000)} s; it stays queued`, {
        remedy: 'Start a worker for the index queue (aiops worker --queues index), or wait for the one running to reach this job.',
      });
    }
    if (outcome.state === 'failed') throw failureError(outcome.failedReason, `index job ${jobId}`);
    return outcome.result as R;
  }

  index(name: string, { force }: { force: boolean }): Promise<IndexResult> {
    return this.run<IndexResult>(jobIds.kbIndex(name), async () => {
      await this.start(name, { force });
    });
  }

  async start(name: string, { force }: { force: boolean }): Promise<string> {
    const jobId = jobIds.kbIndex(name);
    await this.queue.add({ name: JobName.KbIndex, data: { repository: name, force } }, jobId);
    return jobId;
  }

  async purge(name: string): Promise<PurgeResult> {
    const jobId = jobIds.kbPurge(name);
    return this.run<PurgeResult>(jobId, () => this.queue.add({ name: JobName.KbPurge, data: { repository: name } }, jobId));
  }
}
