import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { z } from 'zod';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildPlatformToolServer, type PlatformToolServer } from '../../src/roles/mcp.js';
import { createServer } from '../../src/tool-server/server.js';
import { KbInitOutput } from '../../src/tool-server/tools/kb-init-repos.js';
import { KbListOutput } from '../../src/tool-server/tools/kb-list-repos.js';
import { KbStatusOutput } from '../../src/tool-server/tools/kb-repo-status.js';
import { KbSearchOutput } from '../../src/tool-server/tools/kb-semantic-search.js';
import { KbUpdateOutput } from '../../src/tool-server/tools/kb-update-repos.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { OPTIMIZED_MAX_CHARS } from '../../src/knowledge/knowledge-base.service.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { writeTinyModel } from '../endpoint-search/support/tiny-model.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { createRemote, type TestRemote } from '../knowledge/support/git-remote.js';

const CODE = `"""HTTP helpers."""


def fetch_all_pages(client, url):
    """Yield every page of results, following the next link until there is none."""
    while url:
        page = client.get(url)
        yield page
        url = page.get("next")


def parse_timestamp(text):
    """Turn an ISO date string into a datetime object."""
    return datetime.fromisoformat(text)


def slugify(name):
    """Lower-case a name and replace spaces with dashes."""
    return name.lower().replace(" ", "-")
`;
const DOC = `# Rack elevations

${'Racks hold devices in units; the elevation view shows the front and rear faces of each rack with its mounted equipment. '.repeat(12)}

## Reservations

${'A reservation holds rack units for a tenant before devices arrive, with a description and the user who made it. '.repeat(12)}
`;
const WORDS = (CODE + DOC + ' iterate walk through all paginated listing results traverse each page every').match(/[A-Za-z]+/g)!;
const GROUPS = [
  ['yield', 'iterate', 'walk', 'traverse', 'through'],
  ['page', 'pages', 'paginated', 'listing'],
  ['every', 'all', 'each'],
];

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('MCP knowledge-base tools', () => {
  let root: string;
  let modelDir: string;
  let remote: TestRemote;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-mcp-'));
    modelDir = await writeTinyModel(path.join(root, 'tiny-kb-model'), { words: WORDS, groups: GROUPS, dimension: 24 });
    remote = createRemote(root, 'acme/http-tools', { 'src/http.py': CODE, 'docs/racks.md': DOC });
  });
  after(() => rm(root, { recursive: true, force: true }));

  async function connect(dataDir: string, env: Record<string, string>) {
    const config = loadConfig({
      GIT_BASE_URL: remote.baseUrl,
      EMBEDDING_MODEL_PATH: modelDir,
      KB_JOB_WAIT_S: '60',
      PLATFORM_INDEX_WAIT_MS: '1000',
      DATA_DIR: dataDir,
      ...env,
    });
    const runtime: PlatformToolServer = await buildPlatformToolServer(config, silentLogger());
    const { server, cleanup } = createServer(runtime.deps, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    return {
      call,
      close: async () => {
        await client.close();
        await cleanup();
        await runtime.close();
      },
    };
  }

  describe('in process (no Redis)', () => {
    let dataDir: string;
    let session: Awaited<ReturnType<typeof connect>>;

    before(async () => {
      dataDir = await mkdtemp(path.join(root, 'data-'));
      session = await connect(dataDir, {});
    });
    after(() => session.close());

    it('adds, lists, indexes and reports a repository', async () => {
      const added = await session.call('platform_kb_add_repo', { repo: 'acme/http-tools', description: 'HTTP helpers' });
      expect(added.isError, text(added)).to.not.equal(true);
      const list = z.object(KbListOutput).parse((await session.call('platform_kb_list_repos')).structuredContent);
      expect(list.repositories.find((r) => r.name === 'acme/http-tools')).to.include({ source: 'user', description: 'HTTP helpers' });
      expect(list.total_count).to.equal(list.repositories.length);

      const update = await session.call('platform_kb_update_repos', { repo: 'acme/http-tools' });
      const summary = z.object(KbUpdateOutput).parse(update.structuredContent);
      expect(summary.status).to.equal('success');
      const status = z.object(KbStatusOutput).parse((await session.call('platform_kb_repo_status')).structuredContent);
      const entry = status.repositories.find((r) => r.name === 'acme/http-tools')!;
      expect(entry).to.include({ status: 'indexed', indexing: false });
      expect(entry.documents).to.be.greaterThan(2);
      expect(status.total_documents).to.equal(entry.documents);
    });

    it('finds a function from a plain description of what it does', async () => {
      const result = await session.call('platform_kb_semantic_search', {
        query: 'walk through all paginated listing results',
        n_results: 3,
      });
      const answer = z.object(KbSearchOutput).parse(result.structuredContent);
      expect(answer.search_mode).to.equal('dense');
      expect(answer.results[0]).to.include({ repository: 'acme/http-tools', file_path: 'src/http.py' });
      expect(answer.results[0]!.content).to.include('def fetch_all_pages');
      expect(answer.results[0]!.content).to.include('Yield every page of results');
      expect(answer.results[0]!.metadata).to.include({ file_type: 'python', start_line: 4, end_line: 9 });
      expect(answer.total_searched).to.be.greaterThan(2);
    });

    it(`optimize_for_llm keeps every hit within ${OPTIMIZED_MAX_CHARS} characters`, async () => {
      const whole = z
        .object(KbSearchOutput)
        .parse(
          (await session.call('platform_kb_semantic_search', { query: 'rack reservation for a tenant', n_results: 5 })).structuredContent,
        );
      expect(
        whole.results.some((hit) => hit.content.length > OPTIMIZED_MAX_CHARS),
        'a whole chunk longer than the budget',
      ).to.equal(true);
      const result = await session.call('platform_kb_semantic_search', {
        query: 'rack reservation for a tenant',
        n_results: 5,
        optimize_for_llm: true,
      });
      const answer = z.object(KbSearchOutput).parse(result.structuredContent);
      expect(answer.results.length).to.be.greaterThan(0);
      for (const hit of answer.results) expect(hit.content.length).to.be.at.most(OPTIMIZED_MAX_CHARS);
      expect(answer.results.some((hit) => hit.content.includes('reservation'))).to.equal(true);
    });

    it('refuses to remove an official repository and removes a user one with its chunks', async () => {
      const official = await session.call('platform_kb_remove_repo', { repo: 'nautobot/nautobot' });
      expect(official.isError).to.equal(true);
      expect(JSON.parse(text(official))).to.include({ status: 'error' });
      const removed = await session.call('platform_kb_remove_repo', { repo: 'acme/http-tools' });
      expect(removed.isError, text(removed)).to.not.equal(true);
      expect((removed.structuredContent as { documents_deleted: number }).documents_deleted).to.be.greaterThan(2);
      const answer = z
        .object(KbSearchOutput)
        .parse((await session.call('platform_kb_semantic_search', { query: 'paginated listing' })).structuredContent);
      expect(answer.results).to.have.length(0);
    });

    it('rejects a malformed repository name', async () => {
      const result = await session.call('platform_kb_add_repo', { repo: '../../etc' });
      expect(result.isError).to.equal(true);
    });

    it('adds a local folder under KB_LOCAL_ROOTS by its URL, under the name given, and refuses one outside', async () => {
      const local = await connect(await mkdtemp(path.join(root, 'data-local-')), { KB_LOCAL_ROOTS: path.join(root, 'remotes') });
      try {
        const url = `file://${remote.bareDir}`;
        const added = await local.call('platform_kb_add_repo', { repo: url, name: 'local/http-tools' });
        expect(added.isError, text(added)).to.not.equal(true);
        const list = z.object(KbListOutput).parse((await local.call('platform_kb_list_repos')).structuredContent);
        expect(list.repositories.find((r) => r.name === 'local/http-tools')).to.include({ url, branch: 'HEAD', source: 'user' });
        const update = z
          .object(KbUpdateOutput)
          .parse((await local.call('platform_kb_update_repos', { repo: 'local/http-tools' })).structuredContent);
        expect(update.status, JSON.stringify(update)).to.equal('success');
        const outside = await local.call('platform_kb_add_repo', { repo: path.join(root, 'work', 'acme', 'http-tools') });
        expect(outside.isError).to.equal(true);
        expect(JSON.parse(text(outside)).error).to.match(/KB_LOCAL_ROOTS/);
      } finally {
        await local.close();
      }
    });
  });

  describe('through the index queue (Redis and a worker)', () => {
    let redis: TestRedis;
    let workers: RunningWorkers;
    let dataDir: string;
    let session: Awaited<ReturnType<typeof connect>>;
    let prefix: string;

    before(async () => {
      redis = await startTestRedis();
      dataDir = await mkdtemp(path.join(root, 'data-q-'));
      prefix = `kbtest${Date.now()}`;
      const env = {
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: prefix,
        DATA_DIR: dataDir,
        GIT_BASE_URL: remote.baseUrl,
        EMBEDDING_MODEL_PATH: modelDir,
      };
      workers = await startWorkers(loadConfig(env), silentLogger(), { queues: [QueueName.Index] });
      await workers.ready();
      session = await connect(dataDir, { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    });
    after(async () => {
      await session?.close();
      await workers?.close();
      await redis?.destroy();
    });

    it('gives the same results as in process, and two concurrent updates run once', async () => {
      await session.call('platform_kb_add_repo', { repo: 'acme/http-tools' });
      const [a, b] = await Promise.all([
        session.call('platform_kb_update_repos', { repo: 'acme/http-tools' }),
        session.call('platform_kb_update_repos', { repo: 'acme/http-tools' }),
      ]);
      const first = z.object(KbUpdateOutput).parse(a.structuredContent);
      const second = z.object(KbUpdateOutput).parse(b.structuredContent);
      expect(first.repositories).to.deep.equal(second.repositories);
      const init = z.object(KbInitOutput).parse((await session.call('platform_kb_init_repos', {})).structuredContent);
      expect(init.repositories.find((r) => r.name === 'acme/http-tools')).to.include({ status: 'unchanged' });
      const answer = z
        .object(KbSearchOutput)
        .parse(
          (await session.call('platform_kb_semantic_search', { query: 'walk through all paginated listing results' })).structuredContent,
        );
      expect(answer.results[0]!.content).to.include('def fetch_all_pages');
      const removed = await session.call('platform_kb_remove_repo', { repo: 'acme/http-tools' });
      expect((removed.structuredContent as { documents_deleted: number }).documents_deleted).to.equal(first.repositories[0]!.documents);
    });
  });
});
