import type { RedisClient } from '../../src/kernel/redis/redis-client.js';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import winston from 'winston';
import { RedisRecordCollection } from '../../src/records/adapters/redis-record-collection.adapter.js';
import { McpChatTools } from '../../src/chat/agent/mcp-chat-tools.js';
import { loadConfig } from '../../src/roles/config.js';
import { HealthStatus } from '../../src/records/status.js';
import { silentLogger, type Logger } from '../../src/kernel/logging/logger.js';
import { McpClientManager } from '../../src/mcp-client/mcp-client-manager.js';
import { buildWorkerMcp, type WorkerMcp } from '../../src/roles/worker-mcp.js';
import { RedisToolVersionStore } from '../../src/mcp-client/adapters/redis-tool-versions.adapter.js';
import { SdkMcpConnector } from '../../src/mcp-client/adapters/sdk-connector.adapter.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import type { McpServerFields, McpServerRecord } from '../../src/records/mcp-server.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import type { Records } from '../../src/records/records.js';
import type { StatusRecord } from '../../src/records/status.js';
import { SecretResolver } from '../../src/records/secret-resolver.js';
import { failing, flapping, hanging, healthy, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures/http-fixture.js';
import { gate } from '../support/gate.js';
import { stdioCommand } from '../support/mcp-fixtures/server-records.js';
import {
  REFERENCE_TOOLS,
  referenceStdioCommand,
  startReferenceServer,
  type ReferenceServer,
} from '../support/mcp-fixtures/reference-server.js';
import { ProtocolHealthChecker } from '../../src/health/health-checker.js';
import { loopbackOutbound, loopbackPolicy } from '../support/outbound.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';

/** A logger that keeps its lines, to check what was logged. */
function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((line) => lines.push(JSON.parse(line))),
  );
  return {
    logger: winston.createLogger({ format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] }),
    lines,
  };
}

describe('MCP server health checks', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let records: Records;
  let prefix: string;
  let runtime: WorkerMcp;
  const fixtures: HttpFixture[] = [];
  const config = (env: Record<string, string> = {}) =>
    loadConfig({ HEALTH_FALL: '2', HEALTH_RISE: '2', HEALTH_TIMEOUT_MS: '8000', ...env });
  const build = (client: RedisClient, env?: Record<string, string>) =>
    buildWorkerMcp({
      redis: client,
      collections: createRecords(client, prefix).collections,
      keyPrefix: prefix,
      config: config(env),
      secrets: new SecretResolver(records.secrets),
      limiter: new ConcurrencyLimiter(4),
      logger: silentLogger(),
      outbound: loopbackPolicy(),
      clientVersion: 'test',
    });
  const fixture = async (...args: Parameters<typeof startHttpFixture>) => {
    const started = await startHttpFixture(...args);
    fixtures.push(started);
    return started;
  };
  const server = async (fields: Partial<McpServerFields>) =>
    records.mcpServers.create({ name: `srv-${randomUUID().slice(0, 8)}`, health_check: '/health', ...fields } as McpServerFields, OPERATOR);
  const stored = async (id: string) =>
    (await records.mcpServers.get(id)) as {
      status: { name: string };
      last_checked: string | null;
      last_error: string | null;
      latency_ms: number | null;
    };

  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });
  beforeEach(async () => {
    prefix = `health${randomUUID().slice(0, 8)}`;
    records = createRecords(redis.client, prefix);
    await records.seed();
    runtime = build(redis.client);
  });
  afterEach(async () => {
    await runtime.close();
    for (const each of fixtures.splice(0)) await each.close();
  });

  it('flips only after HEALTH_FALL failures and HEALTH_RISE passes, storing every check and logging transitions', async () => {
    const flappy = await fixture({ label: 'flappy', health: flapping([200, 500, 200, 500, 500, 200, 200]) });
    const created = await server({ url: flappy.url });
    expect(created.status?.name).to.equal(HealthStatus.Unknown);
    const { logger, lines } = capturingLogger();
    const statuses: string[] = [];
    for (let round = 0; round < 7; round++) {
      const result = await runtime.health.check(created.id, 'scheduled', logger);
      statuses.push(result.status as string);
    }
    // 200 (new: decided at once), 500 (1 failure), 200, 500, 500 (2 failures: flip), 200 (1 pass), 200 (2 passes: flip).
    expect(statuses).to.deep.equal(['Healthy', 'Healthy', 'Healthy', 'Healthy', 'Unhealthy', 'Unhealthy', 'Healthy']);
    const after = await stored(created.id);
    expect(after.status.name).to.equal('Healthy');
    expect(after.last_checked).to.be.a('string');
    expect(after.last_error).to.equal(null);
    expect(after.latency_ms).to.be.a('number');
    const transitions = lines.filter((line) => line.message === 'mcp server status changed').map((line) => [line.from, line.to]);
    expect(transitions).to.deep.equal([
      ['Unknown', 'Healthy'],
      ['Healthy', 'Unhealthy'],
      ['Unhealthy', 'Healthy'],
    ]);
  });

  it('stores the failure of a server that errors or answers too slowly', async () => {
    const down = await fixture({ label: 'down', health: failing });
    const sluggish = await fixture({ label: 'slow', health: hanging });
    const [a, b] = await Promise.all([server({ url: down.url }), server({ url: sluggish.url })]);
    await runtime.close();
    runtime = build(redis.client, { HEALTH_TIMEOUT_MS: '300' });
    const [first, second] = await Promise.all([
      runtime.health.check(a.id, 'scheduled', silentLogger()),
      runtime.health.check(b.id, 'scheduled', silentLogger()),
    ]);
    expect(first).to.include({
      status: 'Unhealthy',
      healthy: false,
      error: 'health check answered HTTP 503',
      url: `${down.url}/health`,
      method: 'http',
    });
    expect(second).to.include({ status: 'Unhealthy', healthy: false, error: 'no answer within 300 ms' });
    expect((await stored(b.id)).last_error).to.equal('no answer within 300 ms');
  });

  it('checks stdio servers by the protocol: starting them, initializing and pinging', async () => {
    const good = await server({ protocol: 'stdio', ...stdioCommand('local') });
    const broken = await server({ protocol: 'stdio', ...stdioCommand('broken', '--exit') });
    const [ok, bad] = await Promise.all([
      runtime.health.check(good.id, 'scheduled', silentLogger()),
      runtime.health.check(broken.id, 'scheduled', silentLogger()),
    ]);
    expect(ok).to.include({ status: 'Healthy', healthy: true, url: null, method: 'protocol' });
    expect(bad).to.include({ status: 'Unhealthy', healthy: false });
    expect(bad.error).to.be.a('string').and.not.equal('');
  });

  describe('the reference server, which has no health path', () => {
    let reference: ReferenceServer;
    before(async () => {
      reference = await startReferenceServer();
    });
    after(async () => {
      await reference.close();
    });

    it('becomes Healthy over HTTP and stdio by the protocol (initialize, ping) and offers its tools', async () => {
      const overHttp = await server({ url: reference.url, health_check: '' });
      const overStdio = await server({ protocol: 'stdio', ...referenceStdioCommand(), health_check: '' });
      expect(overHttp.health_check, 'no health path by default').to.equal('');
      const [http, stdio] = await Promise.all([
        runtime.health.check(overHttp.id, 'new', silentLogger()),
        runtime.health.check(overStdio.id, 'new', silentLogger()),
      ]);
      expect(http).to.include({ status: 'Healthy', healthy: true, error: null, url: `${reference.url}/mcp`, method: 'protocol' });
      expect(stdio).to.include({ status: 'Healthy', healthy: true, error: null, url: null, method: 'protocol' });
      expect(await records.mcpServers.get(overHttp.id)).to.include({ last_check_method: 'protocol', last_error: null });
      const manager = new McpClientManager({
        connector: new SdkMcpConnector({ clientName: 'test', clientVersion: '1', outbound: loopbackOutbound() }),
        credentials: new SecretResolver(records.secrets),
        connectionTtlMs: 60_000,
        connectTimeoutMs: 10_000,
        logger: silentLogger(),
      });
      try {
        for (const id of [overHttp.id, overStdio.id]) {
          const record = (await records.collections.mcpServers.get(id)) as McpServerRecord;
          const tools = await manager.listTools({ server: record, version: '1' });
          expect(tools.map((tool) => tool.name)).to.have.members(REFERENCE_TOOLS);
        }
      } finally {
        await manager.close();
      }
    });

    it('fails a record naming a health path the server lacks, checked as before', async () => {
      const pathed = await server({ url: reference.url, health_check: '/health' });
      const result = await runtime.health.check(pathed.id, 'new', silentLogger());
      expect(result).to.include({ status: 'Unhealthy', healthy: false, error: 'health check answered HTTP 404', method: 'http' });
      expect(await records.mcpServers.get(pathed.id)).to.include({
        last_check_method: 'http',
        last_error: 'health check answered HTTP 404',
      });
    });
  });

  it('tells a server that answers HTTP instead of MCP by its status (401: wants authorization)', async () => {
    const guarded = await fixture({ label: 'guarded', requireBearer: 'not-sent' });
    const created = await server({ url: guarded.url, health_check: '' });
    const result = await runtime.health.check(created.id, 'new', silentLogger());
    expect(result).to.include({ healthy: false, method: 'protocol' });
    expect(result.error).to.match(/^the MCP endpoint answered HTTP 401 \(.*unauthorized/);
    const connector = new SdkMcpConnector({ clientName: 'test', clientVersion: '1', outbound: loopbackOutbound() });
    const probe = await new ProtocolHealthChecker(connector, async () => undefined).check(
      (await records.collections.mcpServers.get(created.id)) as McpServerRecord,
      8_000,
    );
    expect(probe).to.deep.include({ ok: false, method: 'protocol', failure: { kind: 'http_status', status: 401 } });
    expect(guarded.healthRequests, 'no health path asked').to.equal(0);
  });

  it('skips Maintenance servers on scheduled rounds', async () => {
    const up = await fixture({ label: 'up', health: healthy });
    const parked = await server({ url: up.url, status: 'Maintenance' });
    const result = await runtime.health.check(parked.id, 'scheduled', silentLogger());
    expect(result).to.include({ status: 'Maintenance', skipped: 'maintenance' });
    expect(up.healthRequests).to.equal(0);
    expect((await stored(parked.id)).last_checked).to.equal(null);
  });

  it('keeps an edit made while the check ran (compare and swap)', async () => {
    const requested = gate();
    const edited = gate();
    const up = await fixture({ label: 'up', health: () => (requested.open(), { status: 200, after: edited.opened }) });
    const created = await server({ url: up.url });
    const checking = runtime.health.check(created.id, 'scheduled', silentLogger());
    // The check has read the record and waits for the server's answer: edit the record now.
    await requested.opened;
    await records.mcpServers.update(created.id, { description: 'edited meanwhile' }, 'patch', OPERATOR);
    edited.open();
    await checking;
    const after = (await records.mcpServers.get(created.id)) as { description: string; status: { name: string } };
    expect(after).to.deep.include({ description: 'edited meanwhile' });
    expect(after.status.name).to.equal('Healthy');
  });

  it('a flip in one process invalidates the tool cache of another', async () => {
    const flappy = await fixture({ label: 'flappy', health: flapping([200, 500, 500, 200, 200]) });
    const created = await server({ url: flappy.url });
    // "Another process": its own Redis client, client manager and chat tools.
    const otherRedis = redis.client.duplicate();
    const manager = new McpClientManager({
      connector: new SdkMcpConnector({ clientName: 'other', clientVersion: '1', outbound: loopbackOutbound() }),
      credentials: new SecretResolver(records.secrets),
      connectionTtlMs: 60_000,
      connectTimeoutMs: 10_000,
      logger: silentLogger(),
    });
    const statuses = new RedisRecordCollection<StatusRecord>(otherRedis, { prefix, name: 'statuses', keyField: 'name' });
    const tools = new McpChatTools({
      servers: new RedisRecordCollection<McpServerRecord>(otherRedis, { prefix, name: 'mcp-servers', keyField: 'name' }),
      statuses: { getByName: (name) => statuses.getByKey(name) },
      versions: new RedisToolVersionStore(otherRedis, prefix),
      manager,
      toolTimeoutMs: 5_000,
      logger: silentLogger(),
    });
    const context = { userId: 'u1', signal: new AbortController().signal };
    const listings = () => flappy.headers.filter((headers) => headers['mcp-session-id'] === undefined && headers['content-type']).length;
    try {
      expect(await tools.list(context), 'Unknown: not offered').to.deep.equal([]);
      await runtime.health.check(created.id, 'scheduled', silentLogger()); // -> Healthy
      expect((await tools.list(context)).map((tool) => tool.name)).to.include('lookup_device');
      await tools.list(context);
      const sessionsBefore = listings();
      expect(sessionsBefore, 'listed once, then served from the cache').to.equal(1);

      await runtime.health.check(created.id, 'scheduled', silentLogger()); // 1 failure: still Healthy
      expect(await tools.list(context)).to.have.length.greaterThan(0);
      await runtime.health.check(created.id, 'scheduled', silentLogger()); // 2 failures: Unhealthy
      expect(await tools.list(context)).to.deep.equal([]);
      await runtime.health.check(created.id, 'scheduled', silentLogger()); // 1 pass
      expect(await tools.list(context)).to.deep.equal([]);
      await runtime.health.check(created.id, 'scheduled', silentLogger()); // 2 passes: Healthy again
      expect((await tools.list(context)).map((tool) => tool.name)).to.include('lookup_device');
      expect(listings(), 'the flip dropped the cached list and session: a new session listed again').to.equal(2);
    } finally {
      await manager.close();
      otherRedis.disconnect();
    }
  });
});
