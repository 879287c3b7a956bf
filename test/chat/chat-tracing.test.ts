import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { startTracing, type Tracing } from '../../src/kernel/tracing/otel-sdk.adapter.js';
import { openAiCompletion } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startChatHarness, STUB_KEY, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP receiver on loopback: keeps every span of every JSON export. */
async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[];
      };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const LOOKUP: ChatTools = {
  list: async () => [{ name: 'device_lookup', description: 'Find a device', parameters: { type: 'object', properties: {} } }],
  call: async () => 'r1 is in ams',
  review: async () => ({ server: 'test', needsApproval: false }),
};

describe('Traces of a chat turn (API + queue + worker + OTLP receiver)', () => {
  let redis: TestRedis;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let tracing: Tracing | undefined;
  let sut: ChatHarness;
  before(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    tracing = await startTracing('aiops-test');
    sut = await startChatHarness(redis, { tools: LOOKUP });
  });
  after(async () => {
    await sut.close();
    await tracing?.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await receiver.close();
    await redis.destroy();
  });

  it('makes one trace of a turn with a tool call: the request, the queue, the turn, each model and tool call', async () => {
    await sut.model();
    const alice = await sut.token('alice', ['ai_ops.chat', 'ai_ops.view_auditlog']);
    sut.stub.respondWith({ body: openAiCompletion('', [{ id: 'call_1', name: 'device_lookup', arguments: { name: 'secret-r1' } }]) });
    const answered = await sut.call('POST', CHAT, { key: alice, body: { message: 'where is the private router?' } });
    expect(answered.status).to.equal(200);
    const traceId = answered.body.trace_id as string;
    expect(traceId).to.match(/^[0-9a-f]{32}$/);
    const audit = await sut.call('GET', '/api/plugins/ai-ops/audit-log/', { key: alice });
    expect(audit.body.results[0]).to.include({ tool: 'device_lookup', trace_id: traceId });

    await tracing!.shutdown();
    tracing = undefined;
    const turn = receiver.spans.filter((span) => span.traceId === traceId);
    const named = (name: string) => turn.filter((span) => span.name === name);
    const [request] = named(`POST ${CHAT}`);
    const [queued] = named('chat-turn queued');
    const [worker] = named('chat-turn');
    expect(request, 'the API request span').to.not.equal(undefined);
    expect(request!.parentSpanId || undefined).to.equal(undefined);
    expect(queued!.parentSpanId).to.equal(request!.spanId);
    expect(worker!.parentSpanId).to.equal(request!.spanId);
    const models = named('chat model');
    expect(models).to.have.length(2);
    for (const span of models) expect(span.parentSpanId).to.equal(worker!.spanId);
    const attribute = (span: ReceivedSpan, key: string) =>
      Object.values(span.attributes.find((entry) => entry.key === key)?.value ?? {})[0];
    expect(attribute(models[0]!, 'gen_ai.usage.input_tokens')).to.equal(11);
    expect(attribute(models[0]!, 'gen_ai.system')).to.equal('openai');
    const [tool] = named('chat tool');
    expect(tool!.parentSpanId).to.equal(worker!.spanId);
    expect([attribute(tool!, 'aiops.tool.name'), attribute(tool!, 'aiops.tool.outcome')]).to.deep.equal(['device_lookup', 'ok']);
    // No message text, tool argument or secret goes into a span.
    const exported = JSON.stringify(turn);
    for (const secret of ['private router', 'secret-r1', STUB_KEY]) expect(exported).to.not.include(secret);
  });
});
