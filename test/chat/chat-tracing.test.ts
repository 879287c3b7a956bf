import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import type { Records } from '../../src/records/records.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { callApi } from '../support/http.js';
import { attribute, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { LOOPBACK_ALLOW } from '../support/outbound.js';
import { aiopsArgs, startProcess, type RunningProcess } from '../support/processes.js';
import {
  openAiCompletion,
  protocolOf,
  replyFor,
  startProviderStub,
  type ProviderStub,
  type StubRequest,
} from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { startTracing, type Tracing } from '../../src/kernel/tracing/otel-sdk.adapter.js';
import { startChatHarness, STUB_KEY, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const AUDIT = '/api/plugins/ai-ops/audit-log/';
const PROVIDER_KEY = 'sk-trace-test-0123456789abcdef';
const MCP_TOKEN = 'mcp-trace-token-0123456789abcdef';
/** What the user asks: no span may quote it. */
const MESSAGE = 'which model serves the private router of customer zeta?';
/** `--import` it to have a process write down every OpenTelemetry module it resolves. */
const RECORD_IMPORTS = packagePath('test/support/record-otel-imports.mjs');
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** One JSON log line of a child process, or undefined for a line that is not JSON. */
function logLine(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The OpenTelemetry packages a process resolved (from the lines RECORD_IMPORTS wrote). */
async function otelPackages(file: string): Promise<string[]> {
  const urls = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return [...new Set(urls.map((url) => /\/node_modules\/(@opentelemetry\/[^/]+)\//.exec(url)?.[1] ?? url))].sort();
}

/**
 * The API, the chat worker and the HTTP tool server as operators run them, each its own `aiops`
 * process exporting to one OTLP receiver (or not at all), over a private Redis; the platform is
 * this service's own API, so a platform request reaches the API process as well.
 */
describe('Traces of a chat turn across the API, worker and tool server processes', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let stub: ProviderStub;
  let records: Records;
  let dir: string;
  let prefix: string;
  let modelId: string;
  let aliceKey: string;
  let platformToken: string;
  const processes: RunningProcess[] = [];

  before(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    stub = await startProviderStub({ apiKey: PROVIDER_KEY });
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-tracing-'));
    prefix = `trace${process.pid}`;
    records = createRecords(redis.client, prefix);
    await records.seed();
    const secret = async (name: string, variable: string) =>
      records.secrets.create({ name, description: '', provider: 'environment-variable', parameters: { variable } }, OPERATOR);
    await secret('provider-key', 'AIOPS_TEST_TRACE_PROVIDER_KEY');
    await secret('mcp-token', 'AIOPS_TEST_TRACE_MCP_TOKEN');
    modelId = (
      await records.llmModels.create(
        {
          name: 'traced',
          description: '',
          provider: 'openai',
          model_secret_key: 'provider-key',
          hosted_endpoint: `${stub.url}/v1`,
          api_version: '',
          is_default: true,
          temperature: 0,
          model_config: {},
          system_prompt: '',
        },
        OPERATOR,
      )
    ).id;
    const token = async (username: string, permissions: Parameters<Records['tokens']['create']>[0]['permissions']) =>
      (await records.tokens.create({ username, superuser: false, permissions, writeEnabled: true, expires: null })).key;
    aliceKey = await token('alice', ['ai_ops.chat', 'ai_ops.view_auditlog', 'ai_ops.view_llmmodel']);
    platformToken = await token('tool-server', ['ai_ops.view_llmmodel']);
  });
  after(async () => {
    await Promise.all(processes.map((child) => child.stop('SIGKILL')));
    await stub?.close();
    await receiver?.close();
    await redis?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The settings every process shares; `traced` adds the OTLP export under a service name of its own. */
  function settings(apiPort: number): Record<string, string> {
    return {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      LOG_LEVEL: 'info',
      DRAIN_DELAY_MS: '0',
      CHAT_RATE_PER_MIN: '0',
      OUTBOUND_ALLOW: LOOPBACK_ALLOW,
      DATA_DIR: path.join(dir, `data-${apiPort}`),
      EMBEDDING_MODEL: 'none',
      KB_OFFICIAL_REPOS: 'false',
      AIOPS_TEST_TRACE_PROVIDER_KEY: PROVIDER_KEY,
      AIOPS_TEST_TRACE_MCP_TOKEN: MCP_TOKEN,
      // Set by whoever runs the tests or not, tracing is what each process is told here.
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      // The processes of one deployment: a worker's call of the API as its platform goes on in its trace.
      OTEL_TRUSTED_PROPAGATION: 'true',
    };
  }

  /** `aiops ARGS`, writing down the OpenTelemetry modules it loads in `imports`. */
  function aiops(args: string[], env: Record<string, string>, imports: string): RunningProcess {
    const child = startProcess(process.execPath, ['--import', RECORD_IMPORTS, ...aiopsArgs(args)], {
      ...env,
      AIOPS_TEST_OTEL_IMPORTS: imports,
    });
    processes.push(child);
    return child;
  }

  const traced = (service: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });

  it('makes one trace of a turn: the request, the queue, the turn, model calls, tool calls, platform requests, across processes', async () => {
    const apiPort = await freePort();
    const mcpPort = await freePort();
    const env = settings(apiPort);
    const imports = (name: string) => path.join(dir, `${name}-traced.imports`);
    const api = aiops(['api'], { ...env, ...traced('aiops-api') }, imports('api'));
    const worker = aiops(['worker', '--queues', 'chat'], { ...env, ...traced('aiops-worker') }, imports('worker'));
    const toolServer = aiops(
      ['mcp', '--http', String(mcpPort)],
      { ...env, ...traced('aiops-mcp'), MCP_HTTP_TOKEN: MCP_TOKEN, PLATFORM_TOKEN: platformToken, TOOL_PREFIX: 'remote' },
      imports('mcp'),
    );
    await Promise.all([
      api.waitForLine(/"api listening"/, 60_000),
      worker.waitForLine(/"workers started"/, 60_000),
      toolServer.waitForLine(/mcp server listening on http/, 60_000),
    ]);
    await records.mcpServers.create(
      {
        name: 'remote-platform',
        status: 'Healthy',
        approval: 'never',
        url: `http://127.0.0.1:${mcpPort}`,
        auth_secret_key: 'mcp-token',
      } as never,
      OPERATOR,
    );

    // One step calling the platform twice, through the built-in tools and through the tool server's, then the answer.
    const modelPath = `/api/plugins/ai-ops/llm-models/${modelId}/`;
    const args = { method: 'GET', path: modelPath };
    stub.respondWith(
      (request: StubRequest) =>
        replyFor(protocolOf(request.path), '', [
          { id: 'call_1', name: 'platform_dynamic_api_request', arguments: args },
          { id: 'call_2', name: 'remote_dynamic_api_request', arguments: args },
        ]),
      (request: StubRequest) => replyFor(protocolOf(request.path), 'the traced model'),
    );
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const answered = await callApi(baseUrl, 'POST', CHAT, { key: aliceKey, body: { message: MESSAGE } });
    expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
    const traceId = answered.body.trace_id as string;
    expect(traceId).to.match(/^[0-9a-f]{32}$/);
    const jobId = answered.body.job_id as string;

    // The job's view, the audit entries and the log lines of the turn name the trace.
    const job = await callApi(baseUrl, 'GET', `${CHAT}jobs/${jobId}/`, { key: aliceKey });
    expect(job.body).to.include({ status: 'completed', trace_id: traceId });
    const audit = await callApi(baseUrl, 'GET', AUDIT, { key: aliceKey });
    const entries = (audit.body.results as Array<Record<string, unknown>>).filter((entry) => entry.job_id === jobId);
    expect(entries.map((entry) => [entry.tool, entry.outcome, entry.trace_id]).sort()).to.deep.equal([
      ['platform_dynamic_api_request', 'ok', traceId],
      ['remote_dynamic_api_request', 'ok', traceId],
    ]);
    const logs = (child: RunningProcess) => child.lines.map(logLine).filter((line) => line !== undefined);
    const postLine = logs(api).find((line) => line.message === 'request' && line.method === 'POST' && line.path === CHAT);
    expect(postLine).to.include({ trace_id: traceId });
    const turnLines = logs(worker).filter((line) => line.job_id === jobId || line.trace_id === traceId);
    expect(turnLines.map((line) => line.message)).to.include('platform request');
    for (const line of turnLines) expect(line, JSON.stringify(line)).to.include({ trace_id: traceId });
    expect(logs(toolServer).find((line) => line.message === 'platform request')).to.include({ trace_id: traceId });

    // Stopped, each process exports what it still holds.
    await Promise.all([api.stop(), worker.stop(), toolServer.stop()]);
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => !span.parentSpanId);
    expect(roots.map((span) => [span.name, span.service])).to.deep.equal([[`POST ${CHAT}`, 'aiops-api']]);
    for (const span of spans) if (span.parentSpanId) expect(ids.has(span.parentSpanId), `the parent of ${span.name}`).to.equal(true);
    const request = roots[0]!;
    const named = (name: string, service?: string) => spans.filter((span) => span.name === name && (!service || span.service === service));
    const childrenOf = (parent: ReceivedSpan, name?: string) =>
      spans.filter((span) => span.parentSpanId === parent.spanId && (!name || span.name === name));

    const [queued] = named('chat-turn queued', 'aiops-worker');
    const [turn] = named('chat-turn', 'aiops-worker');
    expect(queued!.parentSpanId).to.equal(request.spanId);
    expect(turn!.parentSpanId).to.equal(request.spanId);
    const models = childrenOf(turn!, 'chat model');
    expect(models).to.have.length(2);
    expect([attribute(models[0]!, 'gen_ai.provider.name'), attribute(models[0]!, 'gen_ai.request.model')]).to.deep.equal([
      'openai',
      'traced',
    ]);
    expect(Number(attribute(models[0]!, 'gen_ai.usage.input_tokens'))).to.be.greaterThan(0);
    expect(Number(attribute(models[1]!, 'gen_ai.usage.output_tokens'))).to.be.greaterThan(0);
    // The answer was streamed: how soon its first piece came.
    expect(models.some((span) => typeof attribute(span, 'gen_ai.response.time_to_first_chunk') === 'number')).to.equal(true);
    expect(childrenOf(turn!).map((span) => span.name)).to.include.members(['redis aiopsChatLoad', 'redis aiopsChatAppend']);

    const tools = childrenOf(turn!, 'chat tool');
    const tool = (name: string) => tools.find((span) => attribute(span, 'gen_ai.tool.name') === name)!;
    expect([
      attribute(tool('platform_dynamic_api_request'), 'aiops.tool.server'),
      attribute(tool('platform_dynamic_api_request'), 'aiops.tool.outcome'),
    ]).to.deep.equal(['built-in', 'ok']);
    expect([
      attribute(tool('remote_dynamic_api_request'), 'aiops.tool.server'),
      attribute(tool('remote_dynamic_api_request'), 'aiops.tool.outcome'),
    ]).to.deep.equal(['remote-platform', 'ok']);

    // Each tool call goes on at its tool server (in the worker, or in the tool server's process), then at the platform.
    const template = '/api/plugins/ai-ops/llm-models/{id}/';
    for (const [name, service] of [
      ['platform_dynamic_api_request', 'aiops-worker'],
      ['remote_dynamic_api_request', 'aiops-mcp'],
    ] as const) {
      const [served] = childrenOf(tool(name), `tools/call ${name}`);
      expect(served, `${name} at its tool server`).to.include({ service, kind: SPAN_KIND_SERVER });
      const [platform] = childrenOf(served!, `GET ${template}`);
      expect(platform, `${name}'s platform request`).to.include({ service, kind: SPAN_KIND_CLIENT });
      expect([attribute(platform!, 'url.template'), Number(attribute(platform!, 'http.response.status_code'))]).to.deep.equal([
        template,
        200,
      ]);
      const [answering] = childrenOf(platform!);
      expect(answering, `the API's span of ${name}'s platform request`).to.include({ service: 'aiops-api', kind: SPAN_KIND_SERVER });
    }

    // No message text, tool argument or secret goes into a span, whatever its trace.
    const exported = JSON.stringify(receiver.spans);
    for (const secret of [MESSAGE, 'customer zeta', modelId, PROVIDER_KEY, MCP_TOKEN, platformToken, aliceKey]) {
      expect(exported).to.not.include(secret);
    }
    // Each process loaded the SDK and the exporter.
    for (const name of ['api', 'worker', 'mcp']) {
      expect(await otelPackages(imports(name)), name).to.include.members([
        '@opentelemetry/sdk-trace',
        '@opentelemetry/exporter-trace-otlp-http',
      ]);
    }
  });

  it('loads no OpenTelemetry SDK or exporter without OTEL_EXPORTER_OTLP_ENDPOINT, and answers no trace id', async () => {
    const apiPort = await freePort();
    const env = settings(apiPort);
    const imports = (name: string) => path.join(dir, `${name}-untraced.imports`);
    const api = aiops(['api'], env, imports('api'));
    const worker = aiops(['worker', '--queues', 'chat'], env, imports('worker'));
    await Promise.all([api.waitForLine(/"api listening"/, 60_000), worker.waitForLine(/"workers started"/, 60_000)]);
    stub.respondWith((request: StubRequest) => replyFor(protocolOf(request.path), 'untraced'));
    const answered = await callApi(`http://127.0.0.1:${apiPort}`, 'POST', CHAT, { key: aliceKey, body: { message: 'hello' } });
    expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
    expect(answered.body).to.not.have.property('trace_id');
    await Promise.all([api.stop(), worker.stop()]);
    for (const name of ['api', 'worker']) expect(await otelPackages(imports(name)), name).to.deep.equal(['@opentelemetry/api']);
  });
});

const APPROVED: ChatTools = {
  list: async () => [{ name: 'device_move', description: 'Move a device', parameters: { type: 'object', properties: {} } }],
  call: async () => 'moved',
  review: async () => ({ server: 'test', needsApproval: true }),
};

/** Spans of a turn whose calls wait for their owner: the API and the worker in this process, exporting to a receiver. */
describe('Traces of a chat turn with approvals', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  let sut: ChatHarness;
  before(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    tracing = await startTracing('aiops-test');
    sut = await startChatHarness(redis, { tools: APPROVED });
  });
  after(async () => {
    await sut.close();
    await tracing?.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await receiver.close();
    await redis.destroy();
  });

  it("says each call's decision, how long it waited for it and how it ended: an approved call, a declined one", async () => {
    await sut.model();
    const alice = await sut.token('alice');
    sut.stub.respondWith(
      {
        body: openAiCompletion('', [
          { id: 'call_1', name: 'device_move', arguments: { name: 'secret-r1' } },
          { id: 'call_2', name: 'device_move', arguments: { name: 'secret-r2' } },
        ]),
      },
      { body: openAiCompletion('one moved') },
    );
    const accepted = await sut.call('POST', CHAT, { key: alice, body: { message: MESSAGE }, headers: { prefer: 'respond-async' } });
    const job = String(accepted.body.status_url);
    const traceId = accepted.body.trace_id as string;
    await until(async () => (await sut.call('GET', job, { key: alice })).body.status === 'awaiting_approval', 30_000, 'the turn to wait');
    expect((await sut.call('GET', job, { key: alice })).body).to.include({ trace_id: traceId });
    const decisions = [
      { id: 'call_1', approve: true },
      { id: 'call_2', approve: false },
    ];
    expect((await sut.call('POST', `${job}approvals/`, { key: alice, body: { decisions } })).status).to.equal(202);
    await until(async () => (await sut.call('GET', job, { key: alice })).body.status === 'completed', 30_000, 'the turn to end');

    await tracing!.shutdown();
    tracing = undefined;
    const tools = receiver.spans.filter((span) => span.traceId === traceId && span.name === 'chat tool');
    const outcomes = tools.map((span) => [attribute(span, 'aiops.tool.approval'), attribute(span, 'aiops.tool.outcome')]).sort();
    expect(outcomes).to.deep.equal([
      ['approved', 'ok'],
      ['declined', 'declined'],
    ]);
    for (const span of tools) expect(Number(attribute(span, 'aiops.tool.approval_wait_ms'))).to.be.at.least(0);
    // Both runs of the turn (before and after the decisions) are in its trace.
    expect(receiver.spans.filter((span) => span.traceId === traceId && span.name === 'chat-turn')).to.have.length(2);
    const exported = JSON.stringify(receiver.spans);
    for (const secret of [MESSAGE, 'secret-r1', 'secret-r2', STUB_KEY, alice]) expect(exported).to.not.include(secret);
  });
});

/** A caller's `traceparent`: another trace, sampled or not (flags 01, 00). */
const callerTrace = (flags: '00' | '01') => ({
  traceId: `${flags}${'ab'.repeat(15)}`,
  traceparent: `00-${flags}${'ab'.repeat(15)}-${'cd'.repeat(8)}-${flags}`,
});

/** Spans of requests whose caller sends a trace context: the API and the worker in this process, exporting to a receiver. */
describe("Traces of a caller's requests", function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  before(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    tracing = await startTracing('aiops-test');
  });
  after(async () => {
    await tracing?.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await receiver.close();
    await redis.destroy();
  });

  /** A turn asked for with `traceparent`, by a harness with these settings: its trace id, once its spans are exported. */
  async function tracedTurn(traceparent: string, env: Record<string, string> = {}): Promise<string> {
    const sut = await startChatHarness(redis, { env });
    try {
      await sut.model();
      const alice = await sut.token('alice');
      const answered = await sut.call('POST', CHAT, { key: alice, body: { message: MESSAGE }, headers: { traceparent } });
      expect(answered.status).to.equal(200);
      const traceId = answered.body.trace_id as string;
      await until(
        async () => receiver.spans.some((span) => span.traceId === traceId && span.name === 'chat-turn'),
        30_000,
        'the turn to be exported',
      );
      return traceId;
    } finally {
      await sut.close();
    }
  }

  it("starts a trace of the service's own, sampled as the service decides, with the caller's context as a link", async () => {
    for (const flags of ['01', '00'] as const) {
      const caller = callerTrace(flags);
      const traceId = await tracedTurn(caller.traceparent);
      expect(traceId, flags)
        .to.match(/^[0-9a-f]{32}$/)
        .and.not.equal(caller.traceId);
      expect(receiver.spans.filter((span) => span.traceId === caller.traceId)).to.deep.equal([]);
      const [request] = receiver.spans.filter((span) => span.traceId === traceId && span.name === `POST ${CHAT}`);
      expect(request!.parentSpanId ?? '').to.equal('');
      const links = (request as ReceivedSpan & { links?: Array<{ traceId: string; spanId: string }> }).links ?? [];
      expect(links.map(({ traceId: linked, spanId }) => [linked, spanId])).to.deep.equal([[caller.traceId, 'cd'.repeat(8)]]);
    }
  });

  it("goes on in the caller's trace with OTEL_TRUSTED_PROPAGATION", async () => {
    const caller = callerTrace('01');
    expect(await tracedTurn(caller.traceparent, { OTEL_TRUSTED_PROPAGATION: 'true' })).to.equal(caller.traceId);
  });
});
