import { UnavailableError } from '../kernel/errors.js';
import { addAndWait, joinAndWait } from '../kernel/jobs/add-and-wait.js';
import { failureError } from '../kernel/jobs/job-failure.js';
import type { JobOutcome, JobQueue } from '../kernel/jobs/job-queue.port.js';
import type { IndexProgress, IndexResult, IndexRunner, PurgeResult } from './index-runner.port.js';
import { knowledgeJobIds, KnowledgeJobName, type KnowledgeJob } from './knowledge.jobs.js';

/** Port: the producer side of the `index` queue that this runner needs. */
export type IndexJobQueue = Pick<JobQueue<KnowledgeJob>, 'add' | 'addDeduplicated' | 'waitFor' | 'watch' | 'watchOutcomes'>;

/**
 * Index and purge work as `index` queue jobs, one at a time per repository and kind: while a job
 * for a repository is queued or running, another request joins it instead of adding a second one
 * (index jobs by BullMQ's deduplication, purges by a fixed job id). Waits up to `waitMs` for the worker.
 */
export class QueuedIndexRunner implements IndexRunner {
  readonly kind = 'queue';

  constructor(
    private readonly queue: IndexJobQueue,
    private readonly waitMs: number,
  ) {}

  async index(
    name: string,
    { force, onProgress }: { force: boolean; onProgress?: (progress: IndexProgress) => void },
  ): Promise<IndexResult> {
    const { jobId, outcome } = await joinAndWait(this.queue, () => this.start(name, { force }), this.waitMs, onProgress);
    return this.result<IndexResult>(jobId, outcome);
  }

  start(name: string, { force }: { force: boolean }): Promise<string> {
    return this.queue.addDeduplicated(
      { name: KnowledgeJobName.Index, data: { repository: name, force } },
      knowledgeJobIds.indexJob(name),
      knowledgeJobIds.indexRun(name),
    );
  }

  async purge(name: string): Promise<PurgeResult> {
    const jobId = knowledgeJobIds.purge(name);
    const add = () => this.queue.add({ name: KnowledgeJobName.Purge, data: { repository: name } }, jobId);
    return this.result<PurgeResult>(jobId, await addAndWait(this.queue, jobId, add, this.waitMs));
  }

  /** The job's result (R: that of its kind, as a job id names one job), or the error it failed with; an unfinished job is an UnavailableError. */
  private result<R extends KnowledgeJob['result']>(jobId: string, outcome: JobOutcome<KnowledgeJob['result']> | null): R {
    if (!outcome) {
      throw new UnavailableError(`job ${jobId} did not finish within ${Math.round(this.waitMs / 1000)} s; it stays queued`, {
        remedy: 'Start a worker for the index queue (aiops worker --queues index), or wait for the one running to reach this job.',
      });
    }
    if (outcome.state === 'failed') throw failureError(outcome.failedReason, `index job ${jobId}`);
    return outcome.result as R;
  }
}
