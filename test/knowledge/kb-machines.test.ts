import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openKnowledgeBase } from '../../src/roles/knowledge.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { loadConfig } from '../../src/roles/config.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import type { KnowledgeBase } from '../../src/knowledge/knowledge-base.service.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { until } from '../support/until.js';
import { createRemote, type TestRemote } from './support/git-remote.js';
import { LanceDbLexicalIndex } from '../../src/knowledge/adapters/lancedb-lexical-index.adapter.js';
import { KnowledgeLayout } from '../../src/knowledge/knowledge-layout.js';

/**
 * Three machines as three DATA_DIRs over one Redis: an index worker on the first, the API and a
 * tool server's knowledge base on the second, another tool server's on the third.
 */
describe('Knowledge base across machines (three DATA_DIRs, one Redis)', function () {
  this.timeout(60_000);
  let root: string;
  let remote: TestRemote;
  let api: TestApi;
  let worker: RunningWorkers;
  const dirs = { worker: '', api: '', tools: '' };
  const opened: Array<{ knowledge: KnowledgeBase; close(): Promise<void> }> = [];
  let second: KnowledgeBase;
  let third: KnowledgeBase;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-machines-'));
    for (const name of Object.keys(dirs) as Array<keyof typeof dirs>) dirs[name] = path.join(root, `data-${name}`);
    remote = createRemote(root, 'acme/netdocs', {
      'README.md': '# Network docs\n\nHow circuits are handed over to the carrier and who signs the acceptance form.\n',
      'tools/sync.py':
        'def sync_prefixes(site):\n    """Copy every prefix of a site into the IP address plan."""\n    return site.prefixes\n',
    });
    api = await startTestApi(undefined, { DATA_DIR: dirs.api });
    const env = {
      REDIS_URL: api.redis.url,
      REDIS_KEY_PREFIX: api.keyPrefix,
      GIT_BASE_URL: remote.baseUrl,
      EMBEDDING_MODEL: 'none',
      KB_JOB_WAIT_S: '45',
    };
    worker = await startWorkers(loadConfig({ ...env, DATA_DIR: dirs.worker }), silentLogger(), { queues: [QueueName.Index] });
    await worker.ready();
    for (const dir of [dirs.api, dirs.tools])
      opened.push(await openKnowledgeBase(loadConfig({ ...env, DATA_DIR: dir }), silentLogger(), { redisUnreachable: 'require' }));
    [second, third] = opened.map((kb) => kb.knowledge) as [KnowledgeBase, KnowledgeBase];
  });
  after(async () => {
    for (const kb of opened) await kb.close();
    await worker?.close();
    await api?.close();
    await rm(root, { recursive: true, force: true });
  });

  const statusOf = async (kb: KnowledgeBase) => (await kb.status()).repositories.find((repo) => repo.name === 'acme/netdocs');

  it('indexes on one machine what the API added on another, and both others report and search it', async () => {
    const added = await api.call('POST', '/api/plugins/ai-ops/kb/repos/', { body: { name: 'acme/netdocs', branch: 'main' } });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    await until(
      async () =>
        (await api.call('GET', '/api/plugins/ai-ops/kb/status/')).body.repositories.some(
          (repo: { name: string; status: string }) => repo.name === 'acme/netdocs' && repo.status === 'indexed',
        ),
      30_000,
      'the API to report the repository indexed by the worker',
    );
    for (const kb of [second, third]) {
      expect((await kb.listRepositories()).map((repo) => repo.name)).to.include('acme/netdocs');
      expect(await statusOf(kb))
        .to.include({ status: 'indexed', indexing: false })
        .and.have.property('documents')
        .greaterThan(0);
      const answer = await kb.search('who signs the circuit acceptance form', 3, false);
      expect(answer.search_mode).to.equal('lexical');
      expect(answer.results[0]).to.include({ repository: 'acme/netdocs', file_path: 'README.md' });
    }
    // Each machine holds a cache of its own: the worker's its clone, each searching machine its copy of the lexical index.
    expect(await readdir(path.join(dirs.api, 'knowledge'))).to.deep.equal(['lexical-index']);
    expect(await readdir(path.join(dirs.tools, 'knowledge'))).to.deep.equal(['lexical-index']);
    expect(await readdir(dirs.worker)).to.deep.equal(['repos']);
  });

  it("treats DATA_DIR as a cache: with the worker's deleted, the next run re-clones and re-indexes only what changed, and every machine searches the change", async () => {
    await rm(dirs.worker, { recursive: true, force: true });
    // And the third machine's copy of the lexical index, with its process running: it loads the repository again.
    await rm(path.join(dirs.tools, 'knowledge'), { recursive: true, force: true });
    remote.commit({ 'docs/vlans.md': '# VLAN groups\n\nWhich trunk ports carry the allowed VLAN list of a group.\n' });
    // Started from the third machine, run by the worker on the first.
    const result = await third.index('acme/netdocs', { force: false });
    expect(result).to.include({ status: 'indexed', files_total: 3, files_changed: 1, chunks_removed: 0 });
    for (const kb of [second, third]) {
      const answer = await kb.search('trunk ports allowed VLAN list', 3, false);
      expect(answer.results[0]).to.include({ repository: 'acme/netdocs', file_path: 'docs/vlans.md' });
      expect(await statusOf(kb)).to.include({ documents: result.documents });
    }
  });

  it('removes a repository for every machine', async () => {
    const removed = await api.call('DELETE', '/api/plugins/ai-ops/kb/repos/acme/netdocs/');
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    for (const kb of [second, third]) {
      expect((await kb.listRepositories()).map((repo) => repo.name)).to.not.include('acme/netdocs');
      expect((await kb.search('trunk ports allowed VLAN list', 3, false)).results).to.have.length(0);
    }
    // The third machine's copy went at its first search since: the removal ran on another.
    const copy = await LanceDbLexicalIndex.open(new KnowledgeLayout(dirs.tools).lexicalIndexDir);
    try {
      expect(await copy.held()).to.deep.equal([]);
      expect(await copy.ids('acme/netdocs')).to.deep.equal([]);
    } finally {
      await copy.close();
    }
  });
});
