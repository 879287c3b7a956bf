import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { GitSource } from '../../src/knowledge/git.port.js';
import { SimpleGitSource } from '../../src/knowledge/adapters/simple-git.adapter.js';
import { LanceDbLexicalIndex } from '../../src/knowledge/adapters/lancedb-lexical-index.adapter.js';
import { KnowledgeIndexer } from '../../src/knowledge/knowledge-indexer.js';
import { buildKnowledgeParts, indexSettings, knowledgeBase, type KnowledgeParts } from '../../src/knowledge/knowledge.wiring.js';
import { createRemote, type TestRemote } from './support/git-remote.js';

const para = (words: string) => `${words} `.repeat(40).trim();

const PY = `import os


def add_numbers(a, b):
    """Return the sum of two numbers."""
    return a + b


def greet(name):
    """Say hello to someone."""
    return f"hello {name}"
`;
const MD = `# Guide

${para('introduction overview')}

## Installation

${para('install package pip')}
`;

describe('IndexPipeline (lexical store, local bare repositories)', () => {
  let root: string;
  let remote: TestRemote;
  let parts: KnowledgeParts;

  /** Ids of the chunks stored for the repository. */
  const storedIds = async () => {
    const index = await LanceDbLexicalIndex.open(parts.layout.lexicalIndexDir);
    try {
      return (await index.ids('acme/tools')).sort();
    } finally {
      await index.close();
    }
  };
  /** The chunks a lexical search for `query` finds in the repository. */
  const found = async (query: string) => (await (await parts.store()).search([{ name: 'acme/tools' }], query, 50)).map((hit) => hit.chunk);

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-'));
    remote = createRemote(root, 'acme/tools', { 'tools/a.py': PY, 'docs/guide.md': MD, 'config.yaml': 'name: tools\nversion: 1\n' });
    parts = await buildKnowledgeParts(loadConfig({ GIT_BASE_URL: remote.baseUrl, EMBEDDING_MODEL: 'none' }).knowledge, {
      dataDir: path.join(root, 'data'),
      logger: silentLogger(),
    });
    await parts.lists.add({ name: 'acme/tools', branch: 'main' });
  });
  afterEach(async () => {
    await parts.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists the official repositories unless KB_OFFICIAL_REPOS=false leaves them out (a Git server that does not mirror them)', async () => {
    expect((await parts.lists.list()).map((repo) => `${repo.source} ${repo.name}`)).to.include.members([
      'official nautobot/nautobot',
      'user acme/tools',
    ]);
    const own = await buildKnowledgeParts(
      loadConfig({ GIT_BASE_URL: remote.baseUrl, EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false' }).knowledge,
      { dataDir: path.join(root, 'data'), logger: silentLogger() },
    );
    expect((await own.lists.list()).map((repo) => `${repo.source} ${repo.name}`)).to.deep.equal(['user acme/tools']);
  });

  it('indexes, then re-indexes exactly the added, modified and deleted files', async () => {
    const first = await parts.indexer.index('acme/tools');
    expect(first).to.include({ status: 'indexed', files_total: 3, files_changed: 3, chunks_removed: 0 });
    const before = await parts.state.manifests.get('acme/tools');
    expect(Object.keys(before!.files).sort()).to.deep.equal(['config.yaml', 'docs/guide.md', 'tools/a.py']);
    const pyIds = before!.files['tools/a.py']!.ids;
    expect(pyIds.length).to.be.greaterThan(1);
    expect((await storedIds()).length).to.equal(first.documents);

    remote.commit({
      'tools/a.py': PY.replace('Say hello to someone.', 'Say goodbye to someone.'),
      'notes.txt': 'A plain note about release trains.\n',
      'config.yaml': null,
    });
    const second = await parts.indexer.index('acme/tools');
    expect(second).to.include({
      status: 'indexed',
      files_total: 3,
      files_changed: 2,
      files_removed: 1,
      chunks_added: 1,
      chunks_updated: pyIds.length,
      chunks_removed: 1,
    });
    const after = await parts.state.manifests.get('acme/tools');
    expect(after!.dirty).to.equal(false);
    expect(after!.files['docs/guide.md']).to.deep.equal(before!.files['docs/guide.md']);
    expect(after!.files).to.not.have.property('config.yaml');
    expect(await storedIds()).to.deep.equal(
      Object.values(after!.files)
        .flatMap((f) => f.ids)
        .sort(),
    );
    expect((await found('say goodbye to someone')).some((c) => c.content.includes('goodbye'))).to.equal(true);
    expect((await found('say hello to someone')).some((c) => c.content.includes('hello to someone'))).to.equal(false);
    expect((await found('name tools version')).some((c) => c.file_path === 'config.yaml')).to.equal(false);

    const third = await parts.indexer.index('acme/tools');
    expect(third).to.include({ status: 'unchanged', chunks_added: 0, chunks_updated: 0, chunks_removed: 0, documents: second.documents });
  });

  it('indexes JavaScript and TypeScript by default, but never minified bundles', async () => {
    const ts = `/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\n/** Greets someone. */\nexport function greet(name: string): string {\n  return \`hello \${name}\`;\n}\n`;
    remote.commit({
      'web/math.ts': ts,
      'web/legacy.js': ts.replace(/: (number|string)/g, ''),
      'web/bundle.min.js': 'function a(b){return b}',
    });
    await parts.indexer.index('acme/tools');
    const files = Object.keys((await parts.state.manifests.get('acme/tools'))!.files).sort();
    expect(files).to.deep.equal(['config.yaml', 'docs/guide.md', 'tools/a.py', 'web/legacy.js', 'web/math.ts']);
    expect(
      (await found('adds two numbers')).filter((chunk) => chunk.file_path === 'web/math.ts').map((chunk) => chunk.file_type),
    ).to.include('typescript');
  });

  it('never indexes a symlink, even one pointing outside the repository', async () => {
    const secret = path.join(root, 'secret.md');
    await writeFile(secret, '# Secret\n\nthe launch code is hunter2\n');
    remote.commit({ 'docs/secret.md': { symlink: secret }, 'docs/inside.md': { symlink: 'guide.md' } });
    const result = await parts.indexer.index('acme/tools');
    const manifest = await parts.state.manifests.get('acme/tools');
    expect(Object.keys(manifest!.files)).to.not.include.members(['docs/secret.md', 'docs/inside.md']);
    expect(result.files_total).to.equal(3);
    expect((await found('the launch code is hunter2')).some((c) => c.content.includes('hunter2'))).to.equal(false);
  });

  it('repairs the index after a run that crashed before writing its manifest', async () => {
    await parts.indexer.index('acme/tools');
    const manifest = (await parts.state.manifests.get('acme/tools'))!;
    // As if a run had written chunks of a file and died: the manifest is marked dirty, the store holds an extra chunk.
    const writer = await (await parts.store()).writer('acme/tools');
    await writer.upsert([
      {
        id: '00000000-0000-5000-8000-000000000001',
        text: 'orphan',
        chunk: { ...(await found('install package'))[0]!, file_path: 'gone.md', content: 'orphan' },
      },
    ]);
    await writer.commit();
    await parts.state.manifests.put('acme/tools', { ...manifest, dirty: true });
    const result = await parts.indexer.index('acme/tools');
    expect(result.chunks_removed).to.equal(1);
    expect(await found('orphan')).to.deep.equal([]);
  });

  it('removing a repository deletes every chunk, the manifest and the clone', async () => {
    const kb = knowledgeBase(parts, silentLogger());
    const { documents } = await parts.indexer.index('acme/tools');
    const removed = await kb.removeRepository('acme/tools');
    expect(removed).to.deep.equal({ repository: 'acme/tools', documents_deleted: documents });
    expect(await parts.state.manifests.get('acme/tools')).to.equal(undefined);
    expect((await kb.search('install package', 5, false)).results).to.have.length(0);
    expect((await kb.listRepositories()).map((r) => r.name)).to.not.include('acme/tools');
  });

  it('runs two concurrent updates of one repository once', async () => {
    let syncs = 0;
    const git = new SimpleGitSource({ timeoutMs: 30_000 });
    const counting: GitSource = { sync: (request) => ((syncs += 1), git.sync(request)) };
    const settings = indexSettings(loadConfig({ GIT_BASE_URL: remote.baseUrl }).knowledge);
    const remotes = { baseUrl: remote.baseUrl, outbound: OutboundPolicy.fromList([]), localRoots: [] };
    const indexer = new KnowledgeIndexer({ ...parts, git: counting, remotes, settings, logger: silentLogger() });
    const kb = knowledgeBase({ ...parts, indexer }, silentLogger());
    const [a, b] = await Promise.all([
      kb.update({ force: false, repository: 'acme/tools' }),
      kb.update({ force: false, repository: 'acme/tools' }),
    ]);
    expect(syncs).to.equal(1);
    expect(a[0]!.result).to.deep.equal(b[0]!.result);
  });

  it('reports progress and status', async () => {
    const kb = knowledgeBase(parts, silentLogger());
    const progress: number[] = [];
    await parts.indexer.index('acme/tools', { onProgress: (p) => progress.push(p.files_done) });
    expect(progress.at(-1)).to.equal(3);
    const status = await kb.status();
    const entry = status.repositories.find((r) => r.name === 'acme/tools')!;
    expect(entry).to.include({ status: 'indexed', indexing: false });
    expect(entry.documents).to.be.greaterThan(0);
    expect(status.indexing_active).to.equal(false);
  });

  it('reports a missing branch as an error and keeps the previous index', async () => {
    await parts.indexer.index('acme/tools');
    await parts.lists.remove('acme/tools');
    await parts.lists.add({ name: 'acme/tools', branch: 'no-such-branch' });
    let error: Error | undefined;
    await parts.indexer.index('acme/tools').catch((e: Error) => (error = e));
    expect(error?.message).to.match(/no-such-branch/);
    expect((await storedIds()).length).to.be.greaterThan(0);
  });
});
