import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LanceDbLexicalIndex } from '../../src/knowledge/adapters/lancedb-lexical-index.adapter.js';
import { RedisLexicalChunks } from '../../src/knowledge/adapters/redis-knowledge-state.adapter.js';
import type { ChunkToStore, SearchedRepository } from '../../src/knowledge/chunk-store.port.js';
import { chunkId } from '../../src/knowledge/index-pipeline.js';
import { LexicalChunkStore } from '../../src/knowledge/lexical-chunk-store.js';
import type { ChunkChanges, SharedLexicalChunks } from '../../src/knowledge/lexical-chunks.port.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const REPOSITORY = 'acme/netdocs';

/** The chunk a run writes for one file (one chunk per file here): its id is the pipeline's. */
function fileChunk(filePath: string, text: string, repository = REPOSITORY): ChunkToStore {
  return {
    id: chunkId(repository, filePath, 0),
    text: `${repository} ${filePath}\n\n${text}`,
    chunk: {
      repository,
      file_path: filePath,
      file_type: 'markdown',
      start_line: 1,
      end_line: 1,
      commit: 'c0ffee',
      last_updated: '',
      content: text,
    },
  };
}

const TOPICS = ['circuit', 'vlan', 'prefix', 'rack', 'cable', 'tenant', 'region', 'platform'];
const fileText = (i: number, revision = 0) =>
  `The ${TOPICS[i % TOPICS.length]} notes of page ${i} (revision ${revision}): who owns the ${TOPICS[(i + 3) % TOPICS.length]} and how it is handed over.`;

/** One run: these files written, those deleted, committed; resolves to the version the run state would record. */
async function run(store: LexicalChunkStore, files: Record<string, string>, deleted: string[] = [], repository = REPOSITORY) {
  const writer = await store.writer(repository);
  await writer.upsert(Object.entries(files).map(([filePath, text]) => fileChunk(filePath, text, repository)));
  await writer.delete(deleted.map((filePath) => chunkId(repository, filePath, 0)));
  return writer.commit();
}

const filesOf = async (store: LexicalChunkStore, query: string, repositories: SearchedRepository[] = [{ name: REPOSITORY }]) =>
  (await store.search(repositories, query, 10)).map((hit) => hit.chunk.file_path);

/** The shared chunks, counting what catching up reads from them. */
function counting(shared: SharedLexicalChunks): SharedLexicalChunks & { caughtUp: Array<{ complete: boolean; chunks: number }> } {
  const caughtUp: Array<{ complete: boolean; chunks: number }> = [];
  return {
    caughtUp,
    read: (repository, ids) => shared.read(repository, ids),
    put: (repository, chunks) => shared.put(repository, chunks),
    commit: (repository, change) => shared.commit(repository, change),
    ids: (repository) => shared.ids(repository),
    drop: (repository) => shared.drop(repository),
    async changes(repository, since): Promise<ChunkChanges> {
      const changes = await shared.changes(repository, since);
      const entry = { complete: changes.complete, chunks: 0 };
      caughtUp.push(entry);
      return {
        ...changes,
        batches: (async function* () {
          for await (const batch of changes.batches) {
            entry.chunks += batch.upsert.length;
            yield batch;
          }
        })(),
      };
    },
  };
}

describe('Lexical index (LanceDB full-text segments)', function () {
  this.timeout(60_000);
  let root: string;
  const opened: LanceDbLexicalIndex[] = [];
  const openIndex = async (name: string) => {
    const index = await LanceDbLexicalIndex.open(path.join(root, name));
    opened.push(index);
    return index;
  };

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-lexical-'));
  });
  afterEach(async () => {
    for (const index of opened.splice(0)) await index.close();
    await rm(root, { recursive: true, force: true });
  });

  describe('as the store of a process on its own', () => {
    it('re-indexes changed and removed files only, and searches the result', async () => {
      const index = await openIndex('index');
      const store = new LexicalChunkStore(index);
      const pages = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`docs/page${i}.md`, fileText(i)]));
      await run(store, { ...pages, 'docs/acceptance.md': 'Who signs the circuit acceptance form when the carrier hands it over.' });
      expect(await filesOf(store, 'who signs the acceptance form'))
        .to.have.members(['docs/acceptance.md'])
        .and.have.length(1);

      await run(store, { 'docs/acceptance.md': 'The acceptance form is signed by the site owner, never by the carrier.' }, [
        'docs/page7.md',
      ]);
      const [first] = await filesOf(store, 'who signs the acceptance form');
      expect(first).to.equal('docs/acceptance.md');
      const [hit] = await store.search([{ name: REPOSITORY }], 'acceptance form site owner', 1);
      expect(hit!.chunk.content).to.equal('The acceptance form is signed by the site owner, never by the carrier.');
      expect(await filesOf(store, 'page 7 revision')).to.not.include('docs/page7.md');
      expect((await index.ids(REPOSITORY)).sort()).to.deep.equal(
        [...Object.keys(pages).filter((file) => file !== 'docs/page7.md'), 'docs/acceptance.md']
          .map((file) => chunkId(REPOSITORY, file, 0))
          .sort(),
      );
    });

    it('merges the segments of many small changes and keeps searching the newest copy of each chunk', async () => {
      const index = await openIndex('index');
      const store = new LexicalChunkStore(index);
      for (let revision = 0; revision < 9; revision++) {
        await run(store, {
          'docs/vlan.md': `VLAN groups, revision marker r${revision}x.`,
          [`docs/extra${revision}.md`]: fileText(revision, revision),
        });
      }
      // Nine changes, each one segment: merged four at a time, so fewer segments than changes.
      const manifest = JSON.parse(await readFile(path.join(root, 'index', 'manifest.json'), 'utf8')) as { segments: unknown[] };
      expect(manifest.segments.length).to.be.lessThan(4);
      const [hit] = await store.search([{ name: REPOSITORY }], 'VLAN groups revision marker', 1);
      expect(hit!.chunk.content).to.equal('VLAN groups, revision marker r8x.');
      expect(await filesOf(store, 'r3x')).to.deep.equal([]);
      expect(await index.ids(REPOSITORY)).to.have.length(10);
    });

    it('reads chunks by id in the order asked, the newest copy of each, none of another repository', async () => {
      const store = new LexicalChunkStore(await openIndex('index'));
      await run(store, { 'docs/a.md': 'First text of a.', 'docs/b.md': 'Text of b.' });
      await run(store, { 'docs/a.md': 'Second text of a.' });
      await run(store, { 'docs/a.md': 'Text of a in another repository.' }, [], 'acme/other');
      const ids = ['docs/b.md', 'docs/missing.md', 'docs/a.md'].map((file) => chunkId(REPOSITORY, file, 0));
      expect((await store.read(REPOSITORY, ids)).map((chunk) => chunk.content)).to.deep.equal(['Text of b.', 'Second text of a.']);
      expect(await store.read('acme/other', ids)).to.deep.equal([]);
    });

    it('searches only the repositories asked for, and forgets a dropped one', async () => {
      const store = new LexicalChunkStore(await openIndex('index'));
      await run(store, { 'docs/racks.md': 'Rack elevations and rack units.' });
      await run(store, { 'docs/racks.md': 'Rack units of the other team.' }, [], 'acme/other');
      expect(await filesOf(store, 'rack units', [{ name: 'acme/other' }])).to.deep.equal(['docs/racks.md']);
      expect(
        (await store.search([{ name: REPOSITORY }, { name: 'acme/other' }], 'rack units', 10)).map((hit) => hit.chunk.repository),
      ).to.have.members([REPOSITORY, 'acme/other']);
      await store.drop('acme/other');
      expect(await filesOf(store, 'rack units', [{ name: 'acme/other' }])).to.deep.equal([]);
      expect(await filesOf(store, 'rack units')).to.deep.equal(['docs/racks.md']);
    });
  });

  describe('as copies of the chunks in Redis, one per machine', () => {
    let redis: TestRedis;
    let prefix = 0;
    before(async () => {
      redis = await startTestRedis();
    });
    after(async () => {
      await redis?.destroy();
    });
    const shared = () => new RedisLexicalChunks(redis.client, `lexical-test-${++prefix}`);

    it('keeps two machines in step, each catching up with only the chunks changed since the version it holds', async () => {
      const chunks = shared();
      const writer = new LexicalChunkStore(await openIndex('machine-a'), chunks);
      const [b, c] = [counting(chunks), counting(chunks)];
      const machineB = new LexicalChunkStore(await openIndex('machine-b'), b);
      const machineC = new LexicalChunkStore(await openIndex('machine-c'), c);
      const pages = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`docs/page${i}.md`, fileText(i)]));
      const first = await run(writer, { ...pages, 'docs/vlans.md': 'Which trunk ports carry the allowed VLAN list of a group.' });
      for (const machine of [machineB, machineC]) {
        const [best] = await filesOf(machine, 'trunk ports allowed VLAN list', [{ name: REPOSITORY, version: first }]);
        expect(best).to.equal('docs/vlans.md');
      }
      expect(b.caughtUp).to.deep.equal([{ complete: true, chunks: 41 }]);

      // The run on machine A changes one file and removes another: each machine reads those two ids and one chunk.
      const second = await run(writer, { 'docs/vlans.md': 'Trunk ports carry the VLAN list of the site, not of the group.' }, [
        'docs/page3.md',
      ]);
      expect(second).to.not.equal(first);
      for (const machine of [machineB, machineC]) {
        const [hit] = await machine.search([{ name: REPOSITORY, version: second }], 'trunk ports VLAN list', 1);
        expect(hit!.chunk.content).to.equal('Trunk ports carry the VLAN list of the site, not of the group.');
        expect(await filesOf(machine, 'page 3 revision', [{ name: REPOSITORY, version: second }])).to.not.include('docs/page3.md');
      }
      expect(b.caughtUp.at(-1)).to.deep.equal({ complete: false, chunks: 1 });
      expect(c.caughtUp.at(-1)).to.deep.equal({ complete: false, chunks: 1 });
      // A search at the version held reads nothing from Redis.
      await machineB.search([{ name: REPOSITORY, version: second }], 'trunk ports', 1);
      expect(b.caughtUp).to.have.length(2);
      // The writer's own machine searches the same, from its own copy.
      expect(await filesOf(writer, 'trunk ports VLAN list', [{ name: REPOSITORY, version: second }])).to.deep.include('docs/vlans.md');
    });

    it('reads chunks by id from Redis, whether or not this machine caught up', async () => {
      const chunks = shared();
      const writer = new LexicalChunkStore(await openIndex('machine-a'), chunks);
      await run(writer, { 'docs/a.md': 'First text of a.', 'docs/b.md': 'Text of b.' });
      await run(writer, { 'docs/a.md': 'Second text of a.' }, ['docs/b.md']);
      const reader = new LexicalChunkStore(await openIndex('machine-b'), chunks);
      const ids = ['docs/b.md', 'docs/a.md'].map((file) => chunkId(REPOSITORY, file, 0));
      expect((await reader.read(REPOSITORY, ids)).map((chunk) => chunk.content)).to.deep.equal(['Second text of a.']);
    });

    it('loads a repository whole on a machine whose copy is gone, and forgets one removed on another machine', async () => {
      const chunks = shared();
      const writer = new LexicalChunkStore(await openIndex('machine-a'), chunks);
      const first = await run(writer, {
        'docs/racks.md': 'Rack elevations show every rack unit.',
        'docs/cables.md': 'Cable colours by purpose.',
      });
      const machineB = counting(chunks);
      let storeB = new LexicalChunkStore(await openIndex('machine-b'), machineB);
      expect(await filesOf(storeB, 'rack units', [{ name: REPOSITORY, version: first }])).to.deep.equal(['docs/racks.md']);
      // Its DATA_DIR deleted (a cache): the next search on that machine loads the repository whole again.
      await opened.pop()!.close();
      await rm(path.join(root, 'machine-b'), { recursive: true, force: true });
      storeB = new LexicalChunkStore(await openIndex('machine-b'), machineB);
      expect(await filesOf(storeB, 'cable colours', [{ name: REPOSITORY, version: first }])).to.deep.equal(['docs/cables.md']);
      expect(machineB.caughtUp.map((entry) => entry.complete)).to.deep.equal([true, true]);

      await writer.drop(REPOSITORY);
      // Removed elsewhere, the repository has no version left: the machine drops its copy.
      expect(await filesOf(storeB, 'cable colours', [{ name: REPOSITORY, version: 'gone:1' }])).to.deep.equal([]);
      expect(await readdir(path.join(root, 'machine-b'))).to.include('manifest.json');
    });

    it('gives a change that rewrites most of a repository a fresh log, so readers behind it load it whole', async () => {
      const chunks = shared();
      const writer = new LexicalChunkStore(await openIndex('machine-a'), chunks);
      const pages = (revision: number) =>
        Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`docs/page${i}.md`, fileText(i, revision)]));
      const first = await run(writer, pages(0));
      const reader = counting(chunks);
      const machineB = new LexicalChunkStore(await openIndex('machine-b'), reader);
      await machineB.search([{ name: REPOSITORY, version: first }], 'circuit notes', 1);
      const second = await run(writer, pages(1));
      const [hit] = await machineB.search([{ name: REPOSITORY, version: second }], 'circuit notes page 0', 1);
      expect(hit!.chunk.content).to.contain('revision 1');
      expect(reader.caughtUp.map((entry) => entry.complete)).to.deep.equal([true, true]);
    });
  });
});
