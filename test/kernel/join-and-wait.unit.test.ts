import { expect } from 'chai';
import { joinAndWait, type JoinableQueue } from '../../src/kernel/jobs/add-and-wait.js';
import type { JobEvent, JobOutcome } from '../../src/kernel/jobs/job-queue.port.js';

/** A queue whose events the test sends by hand, counting its listeners. */
function handQueue() {
  const all = new Set<(jobId: string, outcome: JobOutcome<string>) => void>();
  const perJob = new Map<string, Set<(event: JobEvent<string, number>) => void>>();
  const queue: JoinableQueue<string, number> = {
    watchOutcomes(listener) {
      all.add(listener);
      return () => all.delete(listener);
    },
    watch(jobId, listener) {
      const listeners = perJob.get(jobId) ?? new Set();
      perJob.set(jobId, listeners.add(listener));
      return () => listeners.delete(listener);
    },
    waitFor(jobId, timeoutMs, signal) {
      return new Promise((resolve) => {
        const stop = queue.watch(jobId, (event) => {
          if (event.type === 'completed') settle({ state: 'completed', result: event.result });
        });
        const timer = setTimeout(() => settle(null), timeoutMs);
        const settle = (outcome: JobOutcome<string> | null) => {
          stop();
          clearTimeout(timer);
          resolve(outcome);
        };
        signal?.addEventListener('abort', () => settle(null));
      });
    },
  };
  return {
    queue,
    emit(jobId: string, event: JobEvent<string, number>) {
      if (event.type === 'completed') for (const listener of [...all]) listener(jobId, { state: 'completed', result: event.result });
      for (const listener of [...(perJob.get(jobId) ?? [])]) listener(event);
    },
    listeners: () => all.size + [...perJob.values()].reduce((sum, listeners) => sum + listeners.size, 0),
  };
}

describe(joinAndWait.name, () => {
  it('hears the joined job finish between the add and its answer, and leaves no listener behind', async () => {
    const sut = handQueue();
    const joined = await joinAndWait(
      sut.queue,
      async () => {
        sut.emit('job-a', { type: 'completed', result: 'done' });
        return 'job-a';
      },
      5_000,
    );
    expect(joined).to.deep.equal({ jobId: 'job-a', outcome: { state: 'completed', result: 'done' } });
    expect(sut.listeners()).to.equal(0);
  });

  it("passes on the job's progress until it finishes", async () => {
    const sut = handQueue();
    const progress: number[] = [];
    const waiting = joinAndWait(
      sut.queue,
      async () => 'job-b',
      5_000,
      (done) => progress.push(done),
    );
    await new Promise((resolve) => setImmediate(resolve));
    sut.emit('job-other', { type: 'progress', data: 9 });
    sut.emit('job-b', { type: 'progress', data: 1 });
    sut.emit('job-b', { type: 'completed', result: 'done' });
    expect((await waiting).outcome).to.deep.equal({ state: 'completed', result: 'done' });
    expect(progress).to.deep.equal([1]);
    expect(sut.listeners()).to.equal(0);
  });

  it('stops listening when the add fails, and answers null for a job not finished in time', async () => {
    const sut = handQueue();
    const failure = new Error('Redis is unreachable');
    await joinAndWait(sut.queue, () => Promise.reject(failure), 5_000).then(
      () => expect.fail('the add failed'),
      (error: unknown) => expect(error).to.equal(failure),
    );
    expect(sut.listeners()).to.equal(0);
    expect(await joinAndWait(sut.queue, async () => 'job-c', 10)).to.deep.equal({ jobId: 'job-c', outcome: null });
    expect(sut.listeners()).to.equal(0);
  });
});
