import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { McpClientManager, type McpClientManagerOptions } from '../../src/mcp-client/mcp-client-manager.js';
import { SdkMcpConnector } from '../../src/mcp-client/adapters/sdk-connector.adapter.js';
import { toolResultContent } from '../../src/mcp-client/tool-result-text.js';
import type { McpCallResult } from '../../src/mcp-client/mcp-connector.port.js';
import { loopbackOutbound } from '../support/outbound.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures/http-fixture.js';
import { httpServerRecord, stdioServerRecord } from '../support/mcp-fixtures/server-records.js';
import { referenceStdioCommand } from '../support/mcp-fixtures/reference-server.js';

const toolResultText = (result: McpCallResult) => toolResultContent(result).text;

const SECRETS: Record<string, string> = { 'alpha-key': 'alpha-secret-token', 'stdio-key': 'stdio-secret-token' };

describe(McpClientManager.name, () => {
  const fixtures: HttpFixture[] = [];
  let sut: McpClientManager;

  const manager = (options: Pick<McpClientManagerOptions, 'now' | 'every'> & { connectionTtlMs?: number } = {}) =>
    new McpClientManager({
      connector: new SdkMcpConnector({ clientName: 'aiops-test', clientVersion: '1', outbound: loopbackOutbound() }),
      credentials: { resolve: async (name) => SECRETS[name] ?? Promise.reject(new Error(`no secret ${name}`)) },
      connectionTtlMs: 60_000,
      connectTimeoutMs: 15_000,
      logger: silentLogger(),
      ...options,
    });
  const fixture = async (...args: Parameters<typeof startHttpFixture>) => {
    const started = await startHttpFixture(...args);
    fixtures.push(started);
    return started;
  };

  beforeEach(() => {
    sut = manager();
  });
  afterEach(async () => {
    await sut.close();
    for (const each of fixtures.splice(0)) await each.close();
  });

  it('declares roots and answers roots/list with the roots its record lists, none by default', async () => {
    const rootsSeen = async (roots: { uri: string; name?: string }[] | undefined) => {
      const server = httpServerRecord('reference', '', { protocol: 'stdio', ...referenceStdioCommand(), ...(roots ? { roots } : {}) });
      return toolResultText(await sut.callTool({ server, version: 'v1' }, 'get-roots-list', {}, { timeoutMs: 10_000 }));
    };
    // get-roots-list is offered only to a client that declares roots; it asks the client for them.
    expect(await rootsSeen(undefined)).to.include('no roots are currently configured');
    const listed = await rootsSeen([{ uri: 'file:///srv/configs', name: 'configs' }]);
    expect(listed).to.include('file:///srv/configs').and.to.include('configs');
  });

  it('lists and calls tools over Streamable HTTP with only the server’s own bearer, reusing one session', async () => {
    const alpha = await fixture({ label: 'alpha', requireBearer: 'alpha-secret-token' });
    const target = { server: httpServerRecord('alpha', alpha.url, { auth_secret_key: 'alpha-key' }), version: 'v1' };

    const tools = await sut.listTools(target);
    expect(tools.map((tool) => tool.name)).to.include.members(['lookup_device', 'site_status', 'slow_tool', 'failing_tool']);
    expect(tools.find((tool) => tool.name === 'lookup_device')?.inputSchema).to.nested.include({ 'properties.name.type': 'string' });

    const first = await sut.callTool(target, 'lookup_device', { name: 'r1' }, { timeoutMs: 5_000 });
    const second = await sut.callTool(target, 'site_status', { site: 'ams' }, { timeoutMs: 5_000 });
    expect(toolResultText(first)).to.equal('alpha: device r1 is in ams, rack 4');
    expect(JSON.parse(toolResultText(second))).to.deep.equal({ site: 'ams', up: true, server: 'alpha' });
    expect(alpha.calls).to.deep.equal([
      { name: 'lookup_device', arguments: { name: 'r1' } },
      { name: 'site_status', arguments: { site: 'ams' } },
    ]);
    const initializes = alpha.headers.filter((headers) => !headers['mcp-session-id']);
    expect(initializes, 'one session for every request').to.have.length(1);
    expect(alpha.headers.every((headers) => headers.authorization === 'Bearer alpha-secret-token')).to.equal(true);
  });

  it('refuses the tool list of a server that pages for ever, after a bounded number of pages', async () => {
    const endless = await fixture({ label: 'endless', endlessToolPages: true });
    const error = await sut.listTools({ server: httpServerRecord('endless', endless.url), version: 'v1' }).then(
      () => expect.fail('listed'),
      (caught: unknown) => caught as Error,
    );
    expect(error.message).to.match(/lists more than 20 pages of tools/);
    const listings = endless.headers.filter((headers) => headers['mcp-session-id']).length;
    expect(listings).to.be.at.most(25);
  });

  it('never reads an answer past 8 MiB: the call fails (at its time limit at the latest), and smaller answers come whole', async function () {
    this.timeout(30_000);
    const big = await fixture({ label: 'big' });
    const target = { server: httpServerRecord('big', big.url), version: 'v1' };
    const error = await sut.callTool(target, 'big_output', { chars: 9 * 1024 * 1024 }, { timeoutMs: 5_000 }).then(
      () => expect.fail('answered'),
      (caught: unknown) => caught as Error,
    );
    expect(error).to.be.instanceOf(Error);
    // An answer under the limit still comes whole.
    expect(toolResultText(await sut.callTool(target, 'big_output', { chars: 100_000 }, { timeoutMs: 5_000 }))).to.have.length(100_000);
  });

  it('caches a tool list until the server’s version changes', async () => {
    const alpha = await fixture({ label: 'alpha' });
    const server = httpServerRecord('alpha', alpha.url);
    const listings = () => alpha.headers.length;
    await sut.listTools({ server, version: 'v1' });
    const afterFirst = listings();
    await sut.listTools({ server, version: 'v1' });
    expect(listings(), 'served from the cache').to.equal(afterFirst);
    await sut.listTools({ server, version: 'v2' });
    expect(listings()).to.be.greaterThan(afterFirst);
  });

  it('falls back to HTTP+SSE when the server does not speak Streamable HTTP', async () => {
    const legacy = await fixture({ label: 'legacy', sseOnly: true, requireBearer: 'alpha-secret-token' });
    const target = { server: httpServerRecord('legacy', legacy.url, { auth_secret_key: 'alpha-key' }), version: 'v1' };
    const result = await sut.callTool(target, 'lookup_device', { name: 'r9' }, { timeoutMs: 5_000 });
    expect(toolResultText(result)).to.equal('legacy: device r9 is in ams, rack 4');
    expect(legacy.headers.some((headers) => headers.accept?.includes('text/event-stream') && !headers['content-type'])).to.equal(true);
  });

  it('starts stdio servers with a minimal environment and their own credential only', async () => {
    process.env.AIOPS_TEST_PARENT_SECRET = 'must-not-leak';
    try {
      const target = { server: stdioServerRecord('local', [], { auth_secret_key: 'stdio-key' }), version: 'v1' };
      expect((await sut.listTools(target)).map((tool) => tool.name)).to.include('whoami');
      const seen = JSON.parse(toolResultText(await sut.callTool(target, 'whoami', {}, { timeoutMs: 5_000 }))) as {
        credential: string;
        variables: string[];
      };
      expect(seen.credential).to.equal(createHash('sha256').update('stdio-secret-token').digest('hex'));
      expect(seen.variables).to.not.include('AIOPS_TEST_PARENT_SECRET');
      expect(seen.variables).to.not.include('REDIS_URL');
      expect(sut.openSessions).to.equal(1);
    } finally {
      delete process.env.AIOPS_TEST_PARENT_SECRET;
    }
  });

  it('closes sessions left idle longer than the TTL', async () => {
    await sut.close();
    let clock = 1_000;
    let sweep: () => void = () => expect.fail('the manager sweeps on a timer');
    sut = manager({ connectionTtlMs: 200, now: () => clock, every: (task) => ((sweep = task), () => undefined) });
    const alpha = await fixture({ label: 'alpha' });
    await sut.listTools({ server: httpServerRecord('alpha', alpha.url), version: 'v1' });
    clock = 1_199;
    sweep();
    expect(sut.openSessions).to.equal(1);
    clock = 1_200;
    sweep();
    expect(sut.openSessions).to.equal(0);
  });

  it('a tool error comes back as an error result, and the session stays usable', async () => {
    const alpha = await fixture({ label: 'alpha' });
    const target = { server: httpServerRecord('alpha', alpha.url), version: 'v1' };
    const failed = await sut.callTool(target, 'failing_tool', { reason: 'maintenance' }, { timeoutMs: 5_000 });
    expect(failed.isError).to.equal(true);
    expect(toolResultText(failed)).to.include('the inventory backend is down (maintenance)');
    expect(toolResultText(await sut.callTool(target, 'lookup_device', { name: 'r2' }, { timeoutMs: 5_000 }))).to.include('r2');
  });

  it("never lets out a server's echo of its own bearer: the error says what failed without it", async () => {
    // A server that answers every request by quoting the Authorization header it was sent.
    const echo = http.createServer((req, res) =>
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`bad token ${req.headers.authorization ?? ''}`),
    );
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const failure = await sut.listTools({ server: httpServerRecord('echo', url, { auth_secret_key: 'alpha-key' }), version: 'v1' }).then(
        () => expect.fail('a 401 is not a tool list'),
        (error: Error) => error,
      );
      expect(failure.message).to.include('bad token Bearer ***');
      for (let error: unknown = failure; error instanceof Error; error = error.cause) {
        expect(`${error.message}\n${error.stack ?? ''}`).to.not.include(SECRETS['alpha-key']);
      }
    } finally {
      echo.close();
    }
  });
});
