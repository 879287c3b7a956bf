import { expect } from 'chai';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { LlmProvider } from '../../src/records/llm-model.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { startChatHarness, type ChatHarness } from './chat-harness.js';
import {
  REFERENCE_TOOLS,
  referenceStdioCommand,
  startReferenceServer,
  type ReferenceServer,
} from '../support/mcp-fixtures/reference-server.js';
import { protocolOf, replyFor, type StubRequest } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const CHAT = '/plugins/ai-ops/api/chat/';

/** The providers that take images, each with how a model record reaches the stub and where the image must arrive. */
const IMAGE_PROVIDERS: { provider: LlmProvider; endpoint: (url: string) => string; image: (messages: unknown[]) => unknown }[] = [
  {
    provider: 'anthropic',
    endpoint: (url) => url,
    // A tool_result block holding an image block.
    image: (messages) =>
      (messages as { content: unknown }[])
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as { type: string; content?: unknown }[]) : []))
        .filter((block) => block.type === 'tool_result' && Array.isArray(block.content))
        .flatMap((block) => block.content as { type: string; source?: { media_type: string; data: string } }[])
        .find((block) => block.type === 'image')?.source,
  },
  {
    provider: 'openai',
    endpoint: (url) => `${url}/v1`,
    // A user message after the tool messages, with an image_url part.
    image: (messages) =>
      (messages as { role: string; content: unknown }[])
        .filter((message) => message.role === 'user' && Array.isArray(message.content))
        .flatMap((message) => message.content as { type: string; image_url?: { url: string } }[])
        .find((part) => part.type === 'image_url')?.image_url?.url,
  },
  {
    provider: 'ollama',
    endpoint: (url) => url,
    image: (messages) =>
      (messages as { role: string; images?: string[] }[]).find((message) => message.role === 'tool' && message.images)?.images,
  },
];

describe('the chat agent with the protocol’s reference server', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let reference: ReferenceServer;
  let healthWorkers: RunningWorkers;
  let admin: string;

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, { env: { AGENT_MAX_STEPS: '3', MCP_TOOL_RESULT_CHARS: '8000', HEALTH_TIMEOUT_MS: '15000' } });
    healthWorkers = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Health] });
    await healthWorkers.ready();
    reference = await startReferenceServer();
    admin = await sut.token('admin', ['ai_ops.change_mcpserver', 'ai_ops.view_mcpserver']);
  });
  after(async () => {
    await healthWorkers.close();
    await sut.close();
    await reference.close();
    await redis.destroy();
  });

  it('registered over HTTP (no health path) and stdio, becomes Healthy by the protocol and offers all its tools', async () => {
    for (const fields of [
      { name: 'everything', url: reference.url },
      { name: 'everything-stdio', protocol: 'stdio', ...referenceStdioCommand() },
    ]) {
      const created = await sut.records.mcpServers.create({ approval: 'never', ...fields } as never, OPERATOR);
      expect(created.health_check).to.equal('');
      const check = await sut.call('POST', `/api/plugins/ai-ops/mcp-servers/${created.id}/health-check/`, { key: admin });
      expect(check.body, fields.name).to.deep.include({ status: 'Healthy', healthy: true, error: null, method: 'protocol' });
      const record = await sut.call('GET', `/api/plugins/ai-ops/mcp-servers/${created.id}/`, { key: admin });
      expect(record.body).to.include({ last_check_method: 'protocol', last_error: null });
    }
    const model = await sut.model({ name: 'tools-listed', provider: 'openai', hosted_endpoint: `${sut.stub.url}/v1`, is_default: false });
    const before = sut.stub.requests.length;
    sut.stub.respondWith({ body: { choices: [{ message: { content: 'ok' } }] } });
    const key = await sut.token('lister');
    expect((await sut.call('POST', CHAT, { key, body: { message: 'which tools?', model: model.name } })).status).to.equal(200);
    const offered = (sut.stub.requests[before]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    // Both servers offer the same tools, so each is named after its server.
    expect(offered).to.have.members(
      ['everything', 'everything-stdio'].flatMap((server) => REFERENCE_TOOLS.map((tool) => `${server}_${tool}`)),
    );
  });

  for (const { provider, endpoint, image } of IMAGE_PROVIDERS) {
    it(`${provider}: a turn gets the server's image as an image part, its resource links and its structured content`, async () => {
      const model = await sut.model({ name: `content-${provider}`, provider, hosted_endpoint: endpoint(sut.stub.url), is_default: false });
      const before = sut.stub.requests.length;
      sut.stub.respondWith(
        (request: StubRequest) =>
          replyFor(protocolOf(request.path), '', [
            { id: 'call_img', name: 'everything_get-tiny-image', arguments: {} },
            { id: 'call_links', name: 'everything_get-resource-links', arguments: { count: 2 } },
            { id: 'call_weather', name: 'everything_get-structured-content', arguments: { location: 'Chicago' } },
          ]),
        (request: StubRequest) => replyFor(protocolOf(request.path), 'Seen it all.'),
      );
      const key = await sut.token(`user-${provider}`);
      const reply = await sut.call('POST', CHAT, { key, body: { message: 'show me everything', model: model.name } });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.response).to.equal('Seen it all.');

      const second = sut.stub.requests[before + 1]!;
      const messages = second.body.messages as unknown[];
      const seen = image(messages);
      expect(seen, 'the image as the provider takes it').to.not.equal(undefined);
      expect(JSON.stringify(seen)).to.match(/image\/png|iVBOR/);
      const sent = JSON.stringify(messages);
      expect(sent, 'the image described in the text too').to.match(/\[image: image\/png, [\d.]+ (kB|bytes)\]/);
      expect(sent, 'resource links keep name, URI and type')
        .to.include('[resource link: Blob Resource 1 <demo://resource/dynamic/blob/1> text/plain')
        .and.to.include('[resource link: Text Resource 2 <demo://resource/dynamic/text/2> text/plain');
      expect(sent, 'structured content').to.include('Chicago').and.to.include('temperature');
      expect(sent).to.not.include('content not shown');
    });
  }
});
