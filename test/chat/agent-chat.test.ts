import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { LlmProvider } from '../../src/records/llm-model.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { readEvents, startChatHarness, type ChatHarness } from './chat-harness.js';
import { failing, healthy, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures/http-fixture.js';
import { stdioCommand } from '../support/mcp-fixtures/server-records.js';
import { protocolOf, replyFor, type StubRequest } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const ALPHA_SECRET = 'alpha-bearer-0123456789';

/** Every provider protocol the stub speaks, with how a model record reaches it. */
const PROTOCOLS: { provider: LlmProvider; endpoint: (url: string) => string }[] = [
  { provider: 'openai', endpoint: (url) => `${url}/v1` },
  { provider: 'anthropic', endpoint: (url) => url },
  { provider: 'ollama', endpoint: (url) => url },
];

describe('the chat agent with MCP tool servers', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let alpha: HttpFixture;
  let beta: HttpFixture;
  let gamma: HttpFixture;
  let healthWorkers: RunningWorkers;
  const userKeys: string[] = [];
  const ids: Record<string, string> = {};

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, {
      env: { AGENT_MAX_STEPS: '4', MCP_TOOL_TIMEOUT_S: '2', MCP_TOOL_RESULT_CHARS: '500', HEALTH_TIMEOUT_MS: '8000' },
    });
    healthWorkers = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Health] });
    await healthWorkers.ready();
    [alpha, beta, gamma] = await Promise.all([
      startHttpFixture({ label: 'alpha', requireBearer: ALPHA_SECRET }),
      startHttpFixture({ label: 'beta' }),
      startHttpFixture({ label: 'gamma', health: failing }),
    ]);
    process.env.AIOPS_TEST_ALPHA_BEARER = ALPHA_SECRET;
    await sut.records.secrets.create(
      { name: 'alpha-bearer', description: '', provider: 'environment-variable', parameters: { variable: 'AIOPS_TEST_ALPHA_BEARER' } },
      OPERATOR,
    );
    const create = async (name: string, fields: Record<string, unknown>) => {
      // Calls run without asking here: approvals have their own suite (test/chat/chat-approvals.test.ts).
      ids[name] = (await sut.records.mcpServers.create({ name, status: 'Healthy', approval: 'never', ...fields } as never, OPERATOR)).id;
    };
    await create('alpha', { url: alpha.url, auth_secret_key: 'alpha-bearer' });
    await create('beta', { url: beta.url });
    await create('gamma', { url: gamma.url, health_check: '/health', status: 'Unhealthy' });
    await create('local', { protocol: 'stdio', ...stdioCommand('local', '--prefixed') });
  });
  after(async () => {
    await healthWorkers.close();
    await sut.close();
    await Promise.all([alpha.close(), beta.close(), gamma.close()]);
    delete process.env.AIOPS_TEST_ALPHA_BEARER;
    await redis.destroy();
  });

  const ask = async (message: string, model: string, username = 'operator') => {
    const key = await sut.token(username);
    userKeys.push(key);
    return sut.call('POST', CHAT, { key, body: { message, model } });
  };

  for (const { provider, endpoint } of PROTOCOLS) {
    it(`${provider}: calls the right tool with the right arguments and folds the result into the reply`, async () => {
      const model = await sut.model({ name: `agent-${provider}`, provider, hosted_endpoint: endpoint(sut.stub.url), is_default: false });
      const before = sut.stub.requests.length;
      const calls = alpha.calls.length;
      sut.stub.respondWith(
        (request: StubRequest) =>
          replyFor(protocolOf(request.path), '', [{ id: 'call_1', name: 'alpha_lookup_device', arguments: { name: 'r1' } }]),
        (request: StubRequest) => replyFor(protocolOf(request.path), 'r1 is in ams, rack 4 (from alpha).'),
      );
      const reply = await ask('Where is r1?', model.name);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.response).to.equal('r1 is in ams, rack 4 (from alpha).');
      expect(alpha.calls.slice(calls)).to.deep.equal([{ name: 'lookup_device', arguments: { name: 'r1' } }]);

      const [first, second] = sut.stub.requests.slice(before);
      const offered = (first!.body.tools as { name?: string; function?: { name: string } }[]).map(
        (tool) => tool.function?.name ?? tool.name,
      );
      expect(offered).to.include.members([
        'alpha_lookup_device',
        'beta_lookup_device',
        'alpha_site_status',
        'local_lookup_device',
        'whoami',
      ]);
      expect(offered.filter((name) => name?.includes('gamma'))).to.deep.equal([]);
      expect(JSON.stringify(second!.body.messages)).to.include('alpha: device r1 is in ams, rack 4');
    });
  }

  it('stores tool calls and results in the session, streams them as events, and survives a failing tool', async () => {
    const model = await sut.model({ name: 'agent-events', is_default: false });
    sut.stub.respondWith(
      {
        body: replyFor('openai', '', [
          { id: 'call_a', name: 'beta_lookup_device', arguments: { name: 'r7' } },
          { id: 'call_b', name: 'beta_failing_tool', arguments: { reason: 'test' } },
        ]).body,
      },
      { body: replyFor('openai', 'r7 is in ams; the inventory is down.').body },
    );
    const key = await sut.token('streamer');
    userKeys.push(key);
    const accepted = await sut.call('POST', CHAT, {
      key,
      body: { message: 'r7?', model: model.name },
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status).to.equal(202);
    const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${accepted.body.job_id}/events`, { headers: { authorization: `Token ${key}` } });
    const events = await readEvents(stream);
    const results = events.filter(([name]) => name === 'tool_result').map(([, data]) => [data.id, data.ok]);
    expect(results).to.have.deep.members([
      ['call_a', true],
      ['call_b', false],
    ]);
    expect(events.at(-1)![1].response).to.equal('r7 is in ams; the inventory is down.');

    const session = await sut.call('GET', `${CHAT}sessions/${accepted.body.session_id}/`, { key });
    const tools = session.body.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(tools.map((message: { name: string; content: string }) => [message.name, message.content])).to.deep.equal([
      ['beta_lookup_device', 'beta: device r7 is in ams, rack 4'],
      ['beta_failing_tool', 'error: beta: the inventory backend is down (test)'],
    ]);
    expect(session.body.messages.find((message: { tool_calls?: unknown[] }) => message.tool_calls)?.tool_calls).to.have.length(2);
  });

  it('a turn past AGENT_TIMEOUT_S fails with a clear message', async () => {
    const short = await startChatHarness(redis, { env: { AGENT_TIMEOUT_S: '1', MCP_TOOL_TIMEOUT_S: '30' } });
    try {
      await short.records.mcpServers.create({ name: 'beta', status: 'Healthy', url: beta.url, approval: 'never' } as never, OPERATOR);
      const model = await short.model({ name: 'slowpoke' });
      short.stub.respondWith({ body: replyFor('openai', '', [{ id: 'call_s', name: 'slow_tool', arguments: { ms: 5_000 } }]).body });
      const key = await short.token('impatient');
      userKeys.push(key);
      const reply = await short.call('POST', CHAT, { key, body: { message: 'wait', model: model.name } });
      expect(reply.status).to.equal(502);
      expect(reply.body.detail).to.match(/took longer than 1 s/);
    } finally {
      await short.close();
    }
  });

  it('POST .../health-check/ runs a check now and answers it; new servers are checked at once', async () => {
    const admin = await sut.token('admin', ['ai_ops.change_mcpserver', 'ai_ops.add_mcpserver', 'ai_ops.view_mcpserver']);
    userKeys.push(admin);
    const check = await sut.call('POST', `/api/plugins/ai-ops/mcp-servers/${ids.gamma}/health-check/`, { key: admin });
    expect(check.status).to.equal(200);
    expect(check.body).to.deep.include({
      status: 'Unhealthy',
      healthy: false,
      error: 'health check answered HTTP 503',
      url: `${gamma.url}/health`,
      method: 'http',
    });
    expect(check.body.latency_ms).to.be.a('number');

    const viewer = await sut.token('viewer', ['ai_ops.view_mcpserver']);
    userKeys.push(viewer);
    expect((await sut.call('POST', `/api/plugins/ai-ops/mcp-servers/${ids.gamma}/health-check/`, { key: viewer })).status).to.equal(403);
    expect(
      (await sut.call('POST', '/api/plugins/ai-ops/mcp-servers/00000000-0000-4000-8000-000000000000/health-check/', { key: admin })).status,
    ).to.equal(404);

    const fresh = await startHttpFixture({ label: 'fresh', health: healthy });
    try {
      const created = await sut.call('POST', '/api/plugins/ai-ops/mcp-servers/', {
        key: admin,
        body: { name: 'fresh', url: fresh.url, health_check: '/health' },
      });
      expect(created.status).to.equal(201);
      expect(created.body.status.name).to.equal('Unknown');
      // The worker checks a new server at once, on its own: watch the record until it is checked.
      const status = async () =>
        (await sut.call('GET', `/api/plugins/ai-ops/mcp-servers/${created.body.id}/`, { key: admin })).body.status.name as string;
      await until(async () => (await status()) !== 'Unknown', 10_000, 'the first health check of a new server');
      expect(await status()).to.equal('Healthy');
      expect(fresh.healthRequests).to.equal(1);
    } finally {
      await fresh.close();
    }
  });

  it('deleting a server drops its health counts and tool version', async () => {
    const admin = await sut.token('remover', ['ai_ops.add_mcpserver', 'ai_ops.view_mcpserver', 'ai_ops.delete_mcpserver']);
    userKeys.push(admin);
    const doomed = await startHttpFixture({ label: 'doomed', health: healthy });
    try {
      const created = await sut.call('POST', '/api/plugins/ai-ops/mcp-servers/', { key: admin, body: { name: 'doomed', url: doomed.url } });
      const id = created.body.id as string;
      const tag = `{${sut.config.redis.keyPrefix}:mcp}`;
      const kept = async () => [
        await redis.client.hexists(`${tag}:health-streaks`, `${id}.pass`),
        await redis.client.hexists(`${tag}:tool-versions`, id),
      ];
      await until(async () => (await kept()).every((exists) => exists === 1), 10_000, 'the first check to be counted');
      expect((await sut.call('DELETE', `/api/plugins/ai-ops/mcp-servers/${id}/`, { key: admin })).status).to.equal(204);
      expect(await kept()).to.deep.equal([0, 0]);
    } finally {
      await doomed.close();
    }
  });

  it('never sends a user’s API token to any MCP server; each gets only its own credential', () => {
    const everyHeader = [alpha, beta, gamma].flatMap((fixture) => fixture.headers);
    expect(everyHeader.length).to.be.greaterThan(10);
    const seen = JSON.stringify(everyHeader);
    for (const key of userKeys) expect(seen).to.not.include(key);
    expect(seen).to.not.match(/Token /);
    expect(alpha.headers.every((headers) => headers.authorization === `Bearer ${ALPHA_SECRET}`)).to.equal(true);
    expect([...beta.headers, ...gamma.headers].some((headers) => headers.authorization !== undefined)).to.equal(false);
  });
});

describe('configuration', () => {
  it('has the documented defaults for the agent, MCP sessions and health checks', () => {
    const config = loadConfig({});
    expect(config.agent).to.deep.equal({
      maxSteps: 10,
      timeoutMs: 120_000,
      toolTimeoutMs: 30_000,
      toolMaxMs: 600_000,
      resultChars: 16_000,
      answerChars: 100_000,
      builtinTools: true,
      approvalTimeoutMs: 900_000,
    });
    expect(config.health).to.deep.equal({ cron: '*/30 * * * * *', timeoutMs: 5_000, fall: 2, rise: 2, concurrency: 50 });
  });
});
