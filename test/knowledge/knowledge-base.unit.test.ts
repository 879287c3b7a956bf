import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { fileKnowledgeState } from '../../src/knowledge/adapters/knowledge-files.adapter.js';
import { FileLocks } from '../../src/knowledge/adapters/file-locks.adapter.js';
import { ConflictError, NotFoundError } from '../../src/kernel/errors.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { ChunkStore, KnowledgeChunk, ScoredChunk, SearchedRepository } from '../../src/knowledge/chunk-store.port.js';
import type { IndexResult } from '../../src/knowledge/index-runner.port.js';
import type { IndexRunner, PurgeResult } from '../../src/knowledge/index-runner.port.js';
import type { IndexState } from '../../src/knowledge/index-state.js';
import { KnowledgeBase, OPTIMIZED_MAX_CHARS } from '../../src/knowledge/knowledge-base.service.js';
import { KnowledgeLayout } from '../../src/knowledge/knowledge-layout.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';
import { OPERATOR_WRITER } from '../../src/knowledge/repository-admission.js';
import { RepositoryList } from '../../src/knowledge/repository-list.js';
import type { Repository } from '../../src/knowledge/repository.js';

const OFFICIAL: Repository[] = [
  { name: 'acme/core', description: 'core', priority: 1, enabled: true, branch: 'main', file_patterns: ['.py'] },
  { name: 'acme/docs', description: 'docs', priority: 2, enabled: true, branch: 'main', file_patterns: ['.md'] },
  { name: 'acme/old', description: 'old', priority: 3, enabled: false, branch: 'main', file_patterns: ['.md'] },
];

function indexed(repository: string, documents: number): IndexResult {
  return {
    repository,
    status: 'indexed',
    commit: 'c0ffee',
    files_total: 1,
    files_changed: 1,
    files_removed: 0,
    chunks_added: documents,
    chunks_updated: 0,
    chunks_removed: 0,
    documents,
  } as IndexResult;
}

/** Index work as a runner reports it; `failing` names repositories whose run throws. */
class FakeRunner implements IndexRunner {
  readonly kind = 'in-process' as const;
  readonly calls: string[] = [];
  failing = new Set<string>();

  async index(name: string, options: { force: boolean }): Promise<IndexResult> {
    this.calls.push(`index ${name} force=${options.force}`);
    if (this.failing.has(name)) throw new Error(`clone of ${name} failed`);
    return indexed(name, 10);
  }

  async start(name: string, options: { force: boolean }): Promise<string> {
    this.calls.push(`start ${name} force=${options.force}`);
    return `job-${name}`;
  }

  async purge(name: string): Promise<PurgeResult> {
    this.calls.push(`purge ${name}`);
    return { repository: name, documents_deleted: 4 };
  }
}

/** A chunk store answering `hits` (best first) for whichever repositories it is asked about. */
function fakeStore(mode: 'dense' | 'lexical', hits: ScoredChunk[]): ChunkStore & { asked: string[][]; versions: SearchedRepository[][] } {
  const asked: string[][] = [];
  const versions: SearchedRepository[][] = [];
  return {
    mode,
    key: `${mode}:test-model:8`,
    asked,
    versions,
    writer: () => Promise.reject(new Error('not written in these tests')),
    drop: () => Promise.reject(new Error('not dropped in these tests')),
    read: () => Promise.reject(new Error('not read in these tests')),
    search: async (repositories, _query, limit) => {
      const names = repositories.map(({ name }) => name);
      asked.push(names);
      versions.push(repositories.map(({ name, version }) => ({ name, version })));
      return hits.filter((hit) => names.includes(hit.chunk.repository)).slice(0, limit);
    },
  };
}

function chunk(repository: string, content: string, filePath = 'src/racks.py'): KnowledgeChunk {
  return {
    repository,
    file_path: filePath,
    file_type: 'python',
    start_line: 1,
    end_line: 40,
    commit: 'c0ffee',
    last_updated: '2026-01-01T00:00:00.000Z',
    content,
  };
}

describe(KnowledgeBase.name, () => {
  let dir: string;
  let layout: KnowledgeLayout;
  let runner: FakeRunner;
  let locks: FileLocks;

  const knowledgeBase = (store?: ChunkStore) => {
    const { repositories, runs, manifests } = fileKnowledgeState(layout);
    return new KnowledgeBase({
      lists: new RepositoryList(repositories, locks, OFFICIAL),
      runs,
      manifests,
      locks,
      runner,
      store: store && (async () => store),
      rules: { outbound: OutboundPolicy.fromList([]), localRoots: [] },
      logger: silentLogger(),
    });
  };
  const state = (name: string, fields: Partial<IndexState>) => {
    const now = new Date().toISOString();
    return fileKnowledgeState(layout).runs.put(name, {
      state: 'indexed',
      files_done: 0,
      files_total: 0,
      started_at: now,
      updated_at: now,
      ...fields,
    });
  };
  const failure = async (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('should have failed'),
      (error: unknown) => error as Error,
    );

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-kb-unit-'));
    layout = new KnowledgeLayout(dir);
    locks = new FileLocks(layout.locksDir);
    runner = new FakeRunner();
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  describe('repositories', () => {
    it('adds a user repository and starts indexing it', async () => {
      const added = await knowledgeBase().addRepository({ repo: 'someone/tools/' }, OPERATOR_WRITER);
      expect(added).to.deep.include({ job_id: 'job-someone/tools' });
      expect(added.repository).to.include({ name: 'someone/tools', source: 'user', enabled: true });
      expect(runner.calls).to.deep.equal(['start someone/tools force=false']);
      expect((await knowledgeBase().listRepositories()).map((repo) => repo.name)).to.deep.equal([
        'acme/core',
        'acme/docs',
        'acme/old',
        'someone/tools',
      ]);
    });

    it('removes a user repository from the list, then its chunks (by its listed name); an official one stays', async () => {
      await knowledgeBase().addRepository({ repo: 'someone/tools' }, OPERATOR_WRITER);
      expect(await knowledgeBase().removeRepository('Someone/Tools/')).to.deep.equal({ repository: 'someone/tools', documents_deleted: 4 });
      expect(await failure(knowledgeBase().removeRepository('acme/core'))).to.be.instanceOf(ConflictError);
      expect(runner.calls.slice(1)).to.deep.equal(['purge someone/tools']);
      expect((await knowledgeBase().listRepositories()).map((repo) => repo.name)).to.not.include('someone/tools');
    });

    it('starts indexing a listed repository by its listed name, and refuses one not listed', async () => {
      expect(await knowledgeBase().startIndexing('ACME/Docs', true)).to.deep.equal({ repository: 'acme/docs', job_id: 'job-acme/docs' });
      expect(await failure(knowledgeBase().startIndexing('acme/nothing', false))).to.be.instanceOf(NotFoundError);
      expect(runner.calls).to.deep.equal(['start acme/docs force=true']);
    });
  });

  describe('update', () => {
    it('indexes every enabled repository and reports a failure per repository', async () => {
      runner.failing.add('acme/docs');
      const outcomes = await knowledgeBase().update({ force: false });
      expect(outcomes).to.deep.equal([
        { repository: 'acme/core', result: indexed('acme/core', 10) },
        { repository: 'acme/docs', error: 'clone of acme/docs failed' },
      ]);
      expect(runner.calls).to.have.members(['index acme/core force=false', 'index acme/docs force=false']);
    });

    it('indexes one named repository, even a disabled one', async () => {
      expect(await knowledgeBase().update({ force: true, repository: 'acme/old' })).to.deep.equal([
        { repository: 'acme/old', result: indexed('acme/old', 10) },
      ]);
      expect(runner.calls).to.deep.equal(['index acme/old force=true']);
    });
  });

  it('reports each repository from its run state: indexing with progress, failed with why, indexed, not indexed', async () => {
    const release = await locks.acquire('acme~core', { waitMs: 0 });
    await state('acme/core', {
      state: 'indexing',
      files_done: 3,
      files_total: 9,
      documents: 100,
      indexed_at: '2026-01-01T00:00:00.000Z',
      commit: 'c1',
    });
    await state('acme/docs', {
      state: 'failed',
      error: 'clone failed: 404',
      documents: 20,
      indexed_at: '2026-01-02T00:00:00.000Z',
      commit: 'c2',
    });
    await state('acme/old', { state: 'indexed', documents: 5, indexed_at: '2026-01-03T00:00:00.000Z', commit: 'c3' });
    await knowledgeBase().addRepository({ repo: 'someone/tools' }, OPERATOR_WRITER);
    const status = await knowledgeBase().status();
    expect(status.repositories).to.deep.equal([
      {
        name: 'acme/core',
        status: 'indexing',
        documents: 100,
        last_indexed: '2026-01-01T00:00:00.000Z',
        indexing: true,
        enabled: true,
        commit: 'c1',
        progress: { files_done: 3, files_total: 9 },
      },
      {
        name: 'acme/docs',
        status: 'failed',
        documents: 20,
        last_indexed: '2026-01-02T00:00:00.000Z',
        indexing: false,
        enabled: true,
        commit: 'c2',
        error: 'clone failed: 404',
      },
      {
        name: 'acme/old',
        status: 'indexed',
        documents: 5,
        last_indexed: '2026-01-03T00:00:00.000Z',
        indexing: false,
        enabled: false,
        commit: 'c3',
      },
      { name: 'someone/tools', status: 'not_indexed', documents: 0, last_indexed: null, indexing: false, enabled: true, commit: null },
    ]);
    expect(status).to.include({ total_documents: 125, indexing_active: true });
    await release();
  });

  it('does not show as indexing a run whose lock is not held (its process is gone)', async () => {
    await state('acme/core', { state: 'indexing', documents: 7, indexed_at: '2026-01-01T00:00:00.000Z' });
    const [core] = (await knowledgeBase().status()).repositories;
    expect(core).to.include({ status: 'indexed', indexing: false });
    expect(core).to.not.have.property('progress');
  });

  describe('search', () => {
    const long = `def rack_units(rack):\n    return rack.u_height\n${'# filler line about nothing in particular\n'.repeat(40)}`;

    it('searches the enabled repositories indexed in this store, with rounded scores', async () => {
      await state('acme/core', { documents: 30, store: 'dense:test-model:8' });
      await state('acme/docs', { documents: 99, store: 'lexical:none:0' });
      await state('acme/old', { documents: 5, store: 'dense:test-model:8' });
      const store = fakeStore('dense', [{ id: '1', chunk: chunk('acme/core', long), score: 0.87654 }]);
      const answer = await knowledgeBase(store).search('rack units', 5, false);
      expect(store.asked).to.deep.equal([['acme/core']]);
      expect(answer).to.deep.include({ total_searched: 30, search_mode: 'dense' });
      expect(answer).to.not.have.property('note');
      expect(answer.results).to.deep.equal([
        {
          repository: 'acme/core',
          file_path: 'src/racks.py',
          content: long,
          similarity_score: 0.877,
          metadata: { file_type: 'python', last_updated: '2026-01-01T00:00:00.000Z', start_line: 1, end_line: 40, commit: 'c0ffee' },
        },
      ]);
    });

    it('hands the store the version of each repository its last run left, for a machine to catch up to', async () => {
      await state('acme/core', { documents: 30, store: 'lexical:test-model:8', version: 'e1:7' });
      await state('acme/docs', { documents: 3, store: 'lexical:test-model:8' });
      const store = fakeStore('lexical', []);
      await knowledgeBase(store).search('rack units', 5, false);
      expect(store.versions).to.deep.equal([
        [
          { name: 'acme/core', version: 'e1:7' },
          { name: 'acme/docs', version: undefined },
        ],
      ]);
    });

    it('keeps hits short for a language model when asked', async () => {
      await state('acme/core', { documents: 30, store: 'dense:test-model:8' });
      const answer = await knowledgeBase(fakeStore('dense', [{ id: '1', chunk: chunk('acme/core', long), score: 0.5 }])).search(
        'rack units',
        5,
        true,
      );
      const content = answer.results[0]!.content;
      expect(content.length).to.be.at.most(OPTIMIZED_MAX_CHARS);
      expect(content).to.contain('def rack_units(rack):');
    });

    it('puts documentation and library code ahead of tests and data fixtures that score about the same', async () => {
      await state('acme/core', { documents: 30, store: 'dense:test-model:8' });
      const store = fakeStore('dense', [
        { id: '1', chunk: chunk('acme/core', 'def test_rack_units(): ...', 'tests/unit/test_racks.py'), score: 0.8 },
        { id: '2', chunk: chunk('acme/core', '{"rack": {"u_height": 42}}', 'tests/fixtures/racks.json'), score: 0.79 },
        { id: '3', chunk: chunk('acme/core', 'Rack units are counted from the bottom.', 'docs/racks.md'), score: 0.7 },
      ]);
      const answer = await knowledgeBase(store).search('rack units', 2, false);
      expect(answer.results.map(({ file_path }) => file_path)).to.deep.equal(['docs/racks.md', 'tests/unit/test_racks.py']);
    });

    it('says so when it searches lexically or when nothing is indexed yet', async () => {
      expect((await knowledgeBase(fakeStore('dense', [])).search('racks', 5, false)).note).to.equal(
        'no repository is indexed yet: run platform_kb_init_repos (or aiops kb update)',
      );
      await state('acme/core', { documents: 30, store: 'lexical:test-model:8' });
      const lexical = await knowledgeBase(fakeStore('lexical', [])).search('racks', 5, false);
      expect(lexical).to.include({ search_mode: 'lexical', total_searched: 30 });
      // The agent is told how to search words alone: with the names the documentation uses, and again in other words.
      expect(lexical.note).to.match(/^lexical search only .*name the option, function, class or error code.*search again in other words/);
    });

    it('refuses to search in a process without a chunk store', async () => {
      expect((await failure(knowledgeBase().search('racks', 5, false))).message).to.equal('this process has no chunk store for searching');
    });
  });
});
