import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorkers } from '../../src/roles/worker.js';
import { loadConfig } from '../../src/roles/config.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { ChatHarness } from '../chat/chat-harness.js';
import { createRemote } from '../knowledge/support/git-remote.js';
import { healthy, startHttpFixture } from './mcp-fixtures/http-fixture.js';
import { LOOPBACK_ALLOW } from './outbound.js';
import type { TestTopology } from './redis-topologies.js';
import { until } from './until.js';

/**
 * An index run and a health check through the API on a Sentinel or Cluster topology: a worker of
 * the index and health queues (on a DATA_DIR of its own) clones and indexes a local bare
 * repository the API was asked to add, then checks an HTTP MCP server the API was asked to check.
 */
export async function indexAndCheckHealth(sut: ChatHarness, topology: TestTopology): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'aiops-topology-jobs-'));
  const remote = createRemote(root, 'acme/netdocs', { 'README.md': '# Net docs\n\nHow to add a VLAN to a trunk port.\n' });
  const fixture = await startHttpFixture({ label: 'topology', health: healthy });
  const workers = await startWorkers(
    loadConfig({
      ...topology.env,
      OUTBOUND_ALLOW: LOOPBACK_ALLOW,
      REDIS_KEY_PREFIX: sut.prefix,
      DATA_DIR: path.join(root, 'data'),
      GIT_BASE_URL: remote.baseUrl,
      EMBEDDING_MODEL: 'none',
    }),
    silentLogger(),
    { queues: [QueueName.Index, QueueName.Health] },
  );
  try {
    await workers.ready();
    const admin = (
      await sut.records.tokens.create({ username: 'kb-admin', superuser: true, permissions: [], writeEnabled: true, expires: null })
    ).key;
    const added = await sut.call('POST', '/api/plugins/ai-ops/kb/repos/', { key: admin, body: { name: 'acme/netdocs', branch: 'main' } });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    await until(
      async () => {
        const status = await sut.call('GET', '/api/plugins/ai-ops/kb/status/', { key: admin });
        return (status.body.repositories as { name: string; status: string }[]).some(
          (repo) => repo.name === 'acme/netdocs' && repo.status === 'indexed',
        );
      },
      30_000,
      'the repository to be indexed by the worker',
    );
    const server = await sut.call('POST', '/api/plugins/ai-ops/mcp-servers/', {
      key: admin,
      body: { name: 'topology-inventory', url: fixture.url },
    });
    expect(server.status, JSON.stringify(server.body)).to.equal(201);
    const check = await sut.call('POST', `/api/plugins/ai-ops/mcp-servers/${server.body.id}/health-check/`, { key: admin });
    expect(check.status, JSON.stringify(check.body)).to.equal(200);
    expect(check.body).to.include({ healthy: true });
  } finally {
    await workers.close();
    await fixture.close();
    await rm(root, { recursive: true, force: true });
  }
}
