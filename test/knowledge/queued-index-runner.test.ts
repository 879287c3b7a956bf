import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { QueueWorker } from '../../src/kernel/bullmq/bullmq-worker.adapter.js';
import { jobQueue } from '../../src/kernel/bullmq/job-queue.adapter.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { indexProcessor } from '../../src/knowledge/index.processor.js';
import type { IndexProgress, IndexResult } from '../../src/knowledge/index-runner.port.js';
import type { KnowledgeIndexer } from '../../src/knowledge/knowledge-indexer.js';
import { KnowledgeJobName, type KnowledgeJob } from '../../src/knowledge/knowledge.jobs.js';
import { QueuedIndexRunner } from '../../src/knowledge/queued-index-runner.js';
import { openQueue, QueueName, type CatalogueQueue } from '../../src/roles/job-catalogue.js';
import { gate } from '../support/gate.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

const RESULT: IndexResult = {
  repository: 'acme/docs',
  status: 'indexed',
  commit: 'abc',
  files_total: 2,
  files_changed: 2,
  files_removed: 0,
  chunks_added: 4,
  chunks_updated: 0,
  chunks_removed: 0,
  documents: 4,
  time_taken_ms: 1,
};

describe(QueuedIndexRunner.name, function () {
  this.timeout(30_000);
  let redis: TestRedis;
  let queue: CatalogueQueue<typeof QueueName.Index>;
  let worker: QueueWorker<KnowledgeJob>;
  let runs: string[];
  let release: ReturnType<typeof gate>;
  let sut: QueuedIndexRunner;

  beforeEach(async () => {
    redis = await startTestRedis();
    const keyPrefix = `idx${randomUUID().slice(0, 8)}`;
    runs = [];
    release = gate();
    // A run reports half its files, waits for the test, then the rest.
    const indexer = {
      async index(repository: string, { onProgress }: { onProgress?: (progress: IndexProgress) => void }) {
        runs.push(repository);
        onProgress?.({ files_done: 1, files_total: 2 });
        await release.opened;
        onProgress?.({ files_done: 2, files_total: 2 });
        return RESULT;
      },
    } as unknown as Pick<KnowledgeIndexer, 'index' | 'purge'>;
    queue = openQueue(QueueName.Index, { connection: redis.client, keyPrefix, logger: silentLogger(), events: true });
    worker = new QueueWorker<KnowledgeJob>(
      { queueName: QueueName.Index, connection: redis.client, keyPrefix, concurrency: 2, logger: silentLogger() },
      indexProcessor({ indexer }),
    );
    await Promise.all([queue.ready(), worker.ready()]);
    sut = new QueuedIndexRunner(jobQueue(queue, KnowledgeJobName.Index, KnowledgeJobName.Purge), 20_000);
  });
  afterEach(async () => {
    await worker.close();
    await queue.close();
    await redis.destroy();
  });

  it("joins the repository's job while it is queued or running: one run, every caller gets its result and progress", async () => {
    // The ids the runner's adds answer: the job that runs for each request.
    const added: string[] = [];
    const port = jobQueue(queue, KnowledgeJobName.Index, KnowledgeJobName.Purge);
    sut = new QueuedIndexRunner(
      {
        ...port,
        addDeduplicated: async (job, jobId, deduplicationId) => {
          added.push(await port.addDeduplicated(job, jobId, deduplicationId));
          return added.at(-1)!;
        },
      },
      20_000,
    );
    const heard: IndexProgress[][] = [[], []];
    const first = sut.index('acme/docs', { force: false, onProgress: (progress) => heard[0]!.push(progress) });
    const second = sut.index('acme/docs', { force: true, onProgress: (progress) => heard[1]!.push(progress) });
    await until(() => added.length === 2 && runs.length === 1, 10_000, 'both requests added and the run started');
    expect(added[0]).to.match(/^kb-index-acme~docs-/);
    expect(added[1], "the second request joined the first one's job").to.equal(added[0]);
    release.open();

    expect(await Promise.all([first, second])).to.deep.equal([RESULT, RESULT]);
    expect(runs).to.deep.equal(['acme/docs']);
    for (const progress of heard) expect(progress).to.deep.include({ files_done: 2, files_total: 2 });
  });

  it('starts a new job once the last one is over', async () => {
    release.open();
    await sut.index('acme/docs', { force: false });
    await sut.index('acme/docs', { force: false });
    expect(runs).to.deep.equal(['acme/docs', 'acme/docs']);
  });
});
