import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { loadConfig, type Config } from '../../src/roles/config.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { locateKnowledgeBase } from '../../src/roles/knowledge.js';
import { buildPlatformToolServer } from '../../src/roles/mcp.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { createServer } from '../../src/tool-server/server.js';
import { aiopsMcpOverStdio, runAiops } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { createRemote } from './support/git-remote.js';

const ROUTING = `# Routing

## BGP timers

The keepalive timer of a BGP session is 60 seconds and its hold timer 180 seconds; both are set per neighbour.

## OSPF areas

Every OSPF area attaches to the backbone, area 0, directly or through a virtual link.
`;
const VLANS = `# VLANs

VLAN 120 carries the out-of-band management network; VLAN 130 the monitoring probes.
`;

/**
 * `aiops kb` and `aiops mcp` on the service's knowledge base (its Redis and an index worker), as
 * an operator runs them: add (a folder, by path), update, search; both say which knowledge base.
 */
describe('aiops kb and aiops mcp on the service knowledge base', function () {
  this.timeout(90_000);
  let root: string;
  let redis: TestRedis;
  let workers: RunningWorkers;
  let env: Record<string, string>;
  let config: Config;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-cli-'));
    createRemote(root, 'net/routing', { 'docs/routing.md': ROUTING, 'README.md': '# Routing notes\n' });
    createRemote(root, 'net/vlans', { 'vlans.md': VLANS });
    redis = await startTestRedis();
    env = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `kbcli${process.pid}`,
      DATA_DIR: path.join(root, 'data'),
      KB_LOCAL_ROOTS: path.join(root, 'remotes'),
      KB_OFFICIAL_REPOS: 'false',
      EMBEDDING_MODEL: 'none',
      LOG_LEVEL: 'info',
    };
    config = loadConfig(env);
    workers = await startWorkers(config, silentLogger(), { queues: [QueueName.Index] });
    await workers.ready();
  });
  after(async () => {
    await workers?.close();
    await redis?.destroy();
    await rm(root, { recursive: true, force: true });
  });

  it('adds folders by absolute and relative path, indexes them, and says which knowledge base it uses', async () => {
    const added = await runAiops(['kb', 'add', path.join(root, 'remotes', 'net', 'routing.git')], env, root);
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout).to.match(/^added net\/routing from file:\/\/.*routing\.git \(the remote's default branch\)/);
    expect(added.stderr).to.include(`knowledge base: the service's, in the Redis at ${redis.url}`);
    const relative = await runAiops(['kb', 'add', './remotes/net/vlans.git', '--name', 'ops/vlans', '--branch', 'main'], env, root);
    expect(relative.code, relative.stderr).to.equal(0);
    expect(relative.stdout).to.include('added ops/vlans from file://').and.include('(branch main)');
    const update = await runAiops(['kb', 'update'], env, root);
    expect(update.code, update.stdout + update.stderr).to.equal(0);
    expect(update.stdout)
      .to.match(/net\/routing: indexed/)
      .and.match(/ops\/vlans: indexed/);
  });

  it('answers a status with nothing on stderr but which knowledge base it uses (no index queue closed while it starts)', async () => {
    for (let run = 0; run < 3; run++) {
      const status = await runAiops(['kb', 'status'], env, root);
      expect(status.code, status.stderr).to.equal(0);
      expect(status.stdout).to.match(/^NAME +STATUS/);
      expect(status.stderr.trim().split('\n')).to.deep.equal([
        `knowledge base: the service's, in the Redis at ${redis.url}; index work runs as jobs of the service's workers`,
      ]);
    }
  });

  it('refuses a repository in no accepted form, saying which forms are', async () => {
    const bad = await runAiops(['kb', 'add', 'routing'], env, root);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/'routing' is not a repository\. Accepted: owner\/name .*Git URL .*local folder under KB_LOCAL_ROOTS/);
    const outside = await runAiops(['kb', 'add', '/etc'], env, root);
    expect(outside.code).to.equal(1);
    expect(outside.stderr).to.include('KB_LOCAL_ROOTS');
  });

  it('searches with the ranking of platform_kb_semantic_search: file, lines, score and passage; --repo, -n, --json', async () => {
    const question = 'what is the hold timer of a BGP session';
    const json = await runAiops(['kb', 'search', question, '-n', '2', '--json'], env, root);
    expect(json.code, json.stderr).to.equal(0);
    const answer = JSON.parse(json.stdout) as { results: Array<{ file_path: string; similarity_score: number; content: string }> };
    expect(answer.results.length).to.be.within(1, 2);
    expect(answer.results[0]).to.include({ file_path: 'docs/routing.md' });
    expect(answer.results[0]!.content).to.include('hold timer 180 seconds');

    // The tool, over the same knowledge base, ranks the same hits with the same scores.
    const runtime = await buildPlatformToolServer(config, silentLogger());
    const { server, cleanup } = createServer(runtime.deps, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const tool = (await client.callTool({
        name: 'platform_kb_semantic_search',
        arguments: { query: question, n_results: 2 },
      })) as CallToolResult;
      const ranked = (tool.structuredContent as typeof answer).results.map(({ file_path, similarity_score }) => [
        file_path,
        similarity_score,
      ]);
      expect(answer.results.map(({ file_path, similarity_score }) => [file_path, similarity_score])).to.deep.equal(ranked);
    } finally {
      await client.close();
      await cleanup();
      await runtime.close();
    }

    const text = await runAiops(['kb', 'search', question, '-n', '1'], env, root);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(
      /^1\. net\/routing docs\/routing\.md:\d+-\d+ {2}score \d\.\d{3}\n(?:(?: {3}.*)?\n)*? {3}.*hold timer 180 seconds/,
    );
    expect(text.stdout).to.match(/1 of \d+ chunks, lexical search/);

    const only = await runAiops(['kb', 'search', 'management network VLAN', '--repo', 'ops/vlans', '--json'], env, root);
    expect(only.code, only.stderr).to.equal(0);
    const vlans = (JSON.parse(only.stdout) as { results: Array<{ repository: string }> }).results;
    expect(vlans.length).to.be.greaterThan(0);
    expect(vlans.every(({ repository }) => repository === 'ops/vlans')).to.equal(true);
  });

  it('says in one plain line, not a JSON log entry, that it searches lexically when the embedding model cannot be loaded', async () => {
    const offline = { ...env, EMBEDDING_MODEL: 'all-MiniLM-L6-v2', EMBEDDING_MODEL_PATH: path.join(root, 'no-such-model') };
    const search = await runAiops(['kb', 'search', 'hold timer'], offline, root);
    expect(search.code, search.stderr).to.equal(0);
    const [where, ...rest] = search.stderr.trim().split('\n');
    expect(where).to.match(/^knowledge base: the service's/);
    expect(rest).to.have.length(1);
    expect(rest[0]).to.match(
      /^aiops: warning: embedding model unavailable: the knowledge base indexes and searches lexically \(model: no-such-model; error: .+\)$/,
    );
    expect(search.stdout).to.include('lexical search');
  });

  it('aiops mcp over stdio serves the same knowledge base, and says so on stderr', async () => {
    const transport = aiopsMcpOverStdio(env, { cwd: root, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      const listed = (await client.callTool({ name: 'platform_kb_list_repos', arguments: {} })) as CallToolResult;
      const names = (listed.structuredContent as { repositories: Array<{ name: string }> }).repositories.map(({ name }) => name);
      expect(names).to.include.members(['net/routing', 'ops/vlans']);
    } finally {
      await client.close();
    }
    expect(stderr).to.include(`knowledge base: the service's, in the Redis at ${redis.url}`);
  });

  it('with REDIS_URL unset, both find the service in the Redis at the default address when it answers, else this machine', async () => {
    // The default address stands in for REDIS_URL unset: the test's own Redis, then a port where none answers.
    const unset = { ...config, redis: { ...config.redis, configured: false } };
    const service = await locateKnowledgeBase(unset);
    expect(service.shared).to.equal(true);
    expect(service.config.redis.configured).to.equal(true);
    expect(service.description).to.equal(
      `the service's, in the Redis at ${redis.url} (REDIS_URL is unset: the default address); index work runs as jobs of the service's workers`,
    );
    const runtime = await buildPlatformToolServer(service.config, silentLogger());
    try {
      const names = (await runtime.deps.knowledge.listRepositories()).map(({ name }) => name);
      expect(names).to.include.members(['net/routing', 'ops/vlans']);
    } finally {
      await runtime.close();
    }

    const nobody = `redis://127.0.0.1:${await freePort()}`;
    const alone = await locateKnowledgeBase({ ...unset, redis: { ...unset.redis, topology: { kind: 'single', url: nobody } } });
    expect(alone.shared).to.equal(false);
    expect(alone.config.redis.configured).to.equal(false);
    expect(alone.description)
      .to.include(`this machine's own, in ${path.join(root, 'data', 'knowledge')}`)
      .and.include(nobody);
  });
});
