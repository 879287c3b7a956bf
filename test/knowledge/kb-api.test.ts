import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { until } from '../support/until.js';
import { createRemote } from './support/git-remote.js';

describe('Knowledge-base HTTP API', () => {
  let root: string;
  let api: TestApi;
  let workers: RunningWorkers;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-api-'));
    const remote = createRemote(root, 'acme/api-docs', {
      'README.md': '# API docs\n\nHow to page through device lists with limit and offset.\n',
      'setup.py': 'def main():\n    """Install."""\n',
    });
    api = await startTestApi(undefined, { DATA_DIR: path.join(root, 'data') });
    const env = {
      REDIS_URL: api.redis.url,
      REDIS_KEY_PREFIX: api.keyPrefix,
      DATA_DIR: path.join(root, 'data'),
      GIT_BASE_URL: remote.baseUrl,
      EMBEDDING_MODEL: 'none',
    };
    workers = await startWorkers(loadConfig(env), silentLogger(), { queues: [QueueName.Index] });
    await workers.ready();
  });
  after(async () => {
    await workers?.close();
    await api?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists, adds, indexes (as a job), reports and removes a repository', async () => {
    const list = await api.call('GET', '/api/plugins/ai-ops/kb/repos/');
    expect(list.status).to.equal(200);
    expect(list.body.results.map((r: { name: string }) => r.name)).to.include('nautobot/nautobot');

    const added = await api.call('POST', '/api/plugins/ai-ops/kb/repos/', {
      body: { name: 'acme/api-docs', branch: 'main', description: 'API docs' },
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body).to.include({ name: 'acme/api-docs', source: 'user' });
    expect(added.body.job_id).to.match(/^kb-index-acme~api-docs-/);

    const duplicate = await api.call('POST', '/api/plugins/ai-ops/kb/repos/', { body: { name: 'acme/api-docs' } });
    expect(duplicate.status).to.equal(409);

    let entry: { status: string; documents: number } | undefined;
    await until(
      async () => {
        const status = await api.call('GET', '/api/plugins/ai-ops/kb/status/');
        expect(status.status).to.equal(200);
        entry = status.body.repositories.find((r: { name: string }) => r.name === 'acme/api-docs');
        return entry?.status === 'indexed';
      },
      10_000,
      'the repository to be indexed by the worker',
    );
    expect(entry!.documents).to.be.greaterThan(0);

    const reindex = await api.call('POST', '/api/plugins/ai-ops/kb/repos/acme/api-docs/reindex/', { body: { force: true } });
    expect(reindex.status).to.equal(202);
    expect(reindex.body).to.deep.equal({ repository: 'acme/api-docs', job_id: reindex.body.job_id });
    expect(reindex.body.job_id).to.match(/^kb-index-acme~api-docs-/);

    const removed = await api.call('DELETE', '/api/plugins/ai-ops/kb/repos/acme/api-docs/');
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    expect(removed.body).to.deep.equal({ repository: 'acme/api-docs', documents_deleted: entry!.documents });
    expect((await api.call('DELETE', '/api/plugins/ai-ops/kb/repos/acme/api-docs/')).status).to.equal(404);
  });

  it('answers 409 for an official repository, 400 for a bad name, 403 without the permission', async () => {
    expect((await api.call('DELETE', '/api/plugins/ai-ops/kb/repos/nautobot/nautobot/')).status).to.equal(409);
    expect((await api.call('POST', '/api/plugins/ai-ops/kb/repos/', { body: { name: '../etc' } })).status).to.equal(400);
    const viewer = await api.token({ permissions: ['ai_ops.view_kb'] });
    expect((await api.call('GET', '/api/plugins/ai-ops/kb/status/', { key: viewer })).status).to.equal(200);
    expect((await api.call('POST', '/api/plugins/ai-ops/kb/repos/', { key: viewer, body: { name: 'acme/other' } })).status).to.equal(403);
  });
});
