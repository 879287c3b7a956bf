import type { JobKind, JobOf } from '../../../src/kernel/jobs/job-kind.js';
import type { JobEvent, JobOutcome, JobQueue, JobSnapshot } from '../../../src/kernel/jobs/job-queue.port.js';

type OutcomeListener<J extends JobKind> = (jobId: string, outcome: JobOutcome<J['result']>) => void;

type Snapshot<J extends JobKind> = JobSnapshot<J['data'], J['result'], J['progress']>;
type Listener<J extends JobKind> = (event: JobEvent<J['result'], J['progress']>) => void;

/**
 * A JobQueue in memory with the queue's rules: the first add of an id is kept and a second is
 * ignored; waiters and watchers hear only what happens after they start. The test plays the worker
 * (`activate`, `report`, `park`, `complete`, `fail`); `afterAdd` runs inside `add`, before it resolves, to
 * play a worker so fast that the job is over before its add's reply is read.
 */
export class MemoryJobQueue<J extends JobKind> implements JobQueue<J> {
  private readonly jobs = new Map<string, Snapshot<J>>();
  private readonly listeners = new Map<string, Set<Listener<J>>>();
  private readonly outcomeListeners = new Set<OutcomeListener<J>>();
  /** The job holding each de-duplication id while it is queued or running. */
  private readonly deduplicated = new Map<string, string>();
  /** Every job added, in order (ignored repeats too). */
  readonly added: Array<{ jobId: string; data: J['data'] }> = [];
  readonly stopped: string[] = [];
  readonly resumed: string[] = [];
  afterAdd?: (jobId: string, data: J['data']) => void;

  async add(job: JobOf<J>, jobId: string): Promise<void> {
    const data = structuredClone(job.data as J['data']);
    this.added.push({ jobId, data });
    if (this.jobs.has(jobId)) return;
    this.jobs.set(jobId, { id: jobId, state: 'queued', data });
    this.emit(jobId, { type: 'queued' });
    this.afterAdd?.(jobId, data);
  }

  async addDeduplicated(job: JobOf<J>, jobId: string, deduplicationId: string): Promise<string> {
    const holder = this.deduplicated.get(deduplicationId);
    const state = holder === undefined ? undefined : this.jobs.get(holder)?.state;
    if (holder !== undefined && (state === 'queued' || state === 'active')) return holder;
    this.deduplicated.set(deduplicationId, jobId);
    await this.add(job, jobId);
    return jobId;
  }

  watchOutcomes(listener: OutcomeListener<J>): () => void {
    const own: OutcomeListener<J> = (jobId, outcome) => listener(jobId, outcome);
    this.outcomeListeners.add(own);
    return () => this.outcomeListeners.delete(own);
  }

  async get(jobId: string): Promise<Snapshot<J> | null> {
    const job = this.jobs.get(jobId);
    return job ? structuredClone(job) : null;
  }

  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<J['result']> | null> {
    return new Promise((resolve) => {
      const settle = (outcome: JobOutcome<J['result']> | null) => {
        clearTimeout(timer);
        unwatch();
        signal?.removeEventListener('abort', aborted);
        resolve(outcome);
      };
      const aborted = () => settle(null);
      const timer = setTimeout(aborted, timeoutMs);
      const unwatch = this.watch(jobId, (event) => {
        if (event.type === 'completed') settle({ state: 'completed', result: event.result });
        if (event.type === 'failed') settle({ state: 'failed', failedReason: event.failedReason });
      });
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted);
    });
  }

  watch(jobId: string, listener: Listener<J>): () => void {
    const listeners = this.listeners.get(jobId) ?? new Set();
    this.listeners.set(jobId, listeners);
    // A listener of its own, so that watching twice with one function is two watches.
    const own: Listener<J> = (event) => listener(event);
    listeners.add(own);
    return () => listeners.delete(own);
  }

  async stop(jobId: string): Promise<void> {
    this.stopped.push(jobId);
  }

  async resume(jobId: string): Promise<void> {
    this.resumed.push(jobId);
  }

  /** Waiters and watchers still listening, on every job. */
  listening(): number {
    return [...this.listeners.values()].reduce((sum, listeners) => sum + listeners.size, 0);
  }

  activate(jobId: string): void {
    this.job(jobId).state = 'active';
    this.emit(jobId, { type: 'active' });
  }

  /** The job set aside (JobContext.park): delayed, which reads as queued. */
  park(jobId: string): void {
    this.job(jobId).state = 'queued';
    this.emit(jobId, { type: 'queued' });
  }

  /** A progress report: the job keeps the latest, watchers hear it. */
  report(jobId: string, progress: J['progress']): void {
    this.job(jobId).progress = structuredClone(progress);
    this.emit(jobId, { type: 'progress', data: structuredClone(progress) });
  }

  complete(jobId: string, result: J['result']): void {
    Object.assign(this.job(jobId), { state: 'completed', result: structuredClone(result) });
    this.emit(jobId, { type: 'completed', result: structuredClone(result) });
    for (const listener of [...this.outcomeListeners]) listener(jobId, { state: 'completed', result: structuredClone(result) });
  }

  fail(jobId: string, failedReason: string): void {
    Object.assign(this.job(jobId), { state: 'failed', failedReason });
    this.emit(jobId, { type: 'failed', failedReason });
    for (const listener of [...this.outcomeListeners]) listener(jobId, { state: 'failed', failedReason });
  }

  private job(jobId: string): Snapshot<J> {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`no job ${jobId} was added`);
    return job;
  }

  private emit(jobId: string, event: JobEvent<J['result'], J['progress']>): void {
    for (const listener of [...(this.listeners.get(jobId) ?? [])]) listener(event);
  }
}
