import { expect } from 'chai';
import type {
  ChatMessage,
  ProviderCallPolicy,
  ProviderTarget,
  TextSink,
  ToolDefinition,
} from '../../../src/chat/providers/provider.port.js';
import { ProviderRegistry } from '../../../src/chat/providers/provider-registry.adapter.js';
import { StreamedText } from '../../../src/chat/providers/streamed-text.js';
import { startStubRegistry } from './support/stub-registry.js';
import { replyFor, type Protocol, type ProviderStub } from '../../support/provider-stubs.js';

const KEY = 'sk-test-secret-value-0123456789';
const POLICY: ProviderCallPolicy = { timeoutMs: 5_000, maxRetries: 1 };
const MESSAGES: ChatMessage[] = [{ role: 'user', content: 'where is r1?' }];
const TOOL: ToolDefinition = {
  name: 'device_lookup',
  description: 'Find a device',
  parameters: { type: 'object', properties: { name: { type: 'string' } } },
};
const ANSWER = 'Router **r1** is in ams, rack 4, and it is up.';

/** A sink that keeps what it heard. */
function recorder(): TextSink & { deltas: string[]; restarts: number } {
  const sink = {
    deltas: [] as string[],
    restarts: 0,
    text: (delta: string) => void sink.deltas.push(delta),
    restart: () => void sink.restarts++,
  };
  return sink;
}

describe('LLM providers in streaming mode, against protocol stubs that stream', () => {
  let stub: ProviderStub;
  let registry: ProviderRegistry;

  beforeEach(async () => {
    ({ stub, registry } = await startStubRegistry(KEY));
  });
  afterEach(async () => {
    await stub.close();
  });

  const targets: Record<Exclude<Protocol, 'azure'> | 'azure_ai', () => ProviderTarget> = {
    openai: () => ({ provider: 'openai', model: 'gpt-test', hostedEndpoint: `${stub.url}/v1`, apiVersion: '', credential: KEY }),
    azure_ai: () => ({ provider: 'azure_ai', model: 'gpt4o-deploy', hostedEndpoint: stub.url, apiVersion: '2024-10-21', credential: KEY }),
    anthropic: () => ({ provider: 'anthropic', model: 'claude-test', hostedEndpoint: stub.url, apiVersion: '', credential: KEY }),
    ollama: () => ({ provider: 'ollama', model: 'llama3.1', hostedEndpoint: stub.url, apiVersion: '', credential: undefined }),
    huggingface: () => ({
      provider: 'huggingface',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      hostedEndpoint: `${stub.url}/hf/ep1`,
      apiVersion: '',
      credential: KEY,
    }),
  };
  const wire = (kind: keyof typeof targets): Protocol => (kind === 'azure_ai' ? 'azure' : kind);

  for (const kind of Object.keys(targets) as (keyof typeof targets)[]) {
    it(`${kind}: streams the text as it is written; the reply is the same as a whole one`, async () => {
      stub.respondWith(replyFor(wire(kind), ANSWER), replyFor(wire(kind), ANSWER));
      const provider = registry.create(targets[kind](), POLICY);
      const sink = recorder();
      const streamed = await provider.chat({ messages: MESSAGES, tools: [TOOL], temperature: 0.2, options: {}, stream: sink });
      expect(stub.requests[0]?.body.stream).to.equal(true);
      expect(sink.deltas.length).to.be.greaterThan(5);
      expect(sink.deltas.join('')).to.equal(ANSWER);
      expect(sink.restarts).to.equal(0);
      const whole = await provider.chat({ messages: MESSAGES, tools: [TOOL], temperature: 0.2, options: {} });
      expect(stub.requests[1]?.body.stream).to.not.equal(true);
      expect(streamed.content).to.equal(whole.content);
      expect(streamed.toolCalls).to.deep.equal(whole.toolCalls);
    });

    if (kind === 'openai' || kind === 'azure_ai') {
      it(`${kind}: takes the whole answer of a compatible server that does not stream, and shows it at once`, async () => {
        stub.respondWith({ raw: JSON.stringify(replyFor(wire(kind), ANSWER).body) });
        const sink = recorder();
        const reply = await registry
          .create(targets[kind](), POLICY)
          .chat({ messages: MESSAGES, tools: [TOOL], temperature: 0, options: {}, stream: sink });
        expect(stub.requests[0]?.body.stream).to.equal(true);
        expect(reply.content).to.equal(ANSWER);
        expect(sink.deltas).to.deep.equal([ANSWER]);
      });
    }

    it(`${kind}: assembles streamed tool calls`, async () => {
      const calls = [{ id: 'call_7', name: 'device_lookup', arguments: { name: 'r1', fields: ['site', 'rack'] } }];
      stub.respondWith(replyFor(wire(kind), kind === 'anthropic' ? 'Let me look.' : '', calls));
      const reply = await registry
        .create(targets[kind](), POLICY)
        .chat({ messages: MESSAGES, tools: [TOOL], temperature: 0, options: {}, stream: recorder() });
      expect(reply.toolCalls).to.have.length(1);
      expect(reply.toolCalls[0]).to.include({ name: 'device_lookup' });
      expect(reply.toolCalls[0]?.arguments).to.deep.equal(calls[0]!.arguments);
      // Ollama does not give calls ids: one is made up.
      if (kind !== 'ollama') expect(reply.toolCalls[0]?.id).to.equal('call_7');
    });
  }

  it('openai: usage arrives in the last chunk', async () => {
    const reply = await registry
      .create(targets.openai(), POLICY)
      .chat({ messages: MESSAGES, tools: [], temperature: 0, options: {}, stream: recorder() });
    expect(stub.requests[0]?.body.stream_options).to.deep.equal({ include_usage: true });
    expect(reply.usage).to.deep.equal({ input_tokens: 11, output_tokens: 7 });
  });

  it('a custom handler cannot stream: it answers whole and still works', async () => {
    stub.respondWith({ body: { text: 'custom says hi' } });
    const sink = recorder();
    const reply = await registry
      .create({ provider: 'custom', model: 'tiny', hostedEndpoint: stub.url, apiVersion: '', credential: KEY }, POLICY)
      .chat({ messages: MESSAGES, tools: [], temperature: 0, options: { custom_provider: 'echo-json' }, stream: sink });
    expect(reply.content).to.equal('custom says hi');
    expect(sink.deltas).to.deep.equal([]);
  });
});

describe(StreamedText.name, () => {
  it('tells the sink to start over when an attempt after one that wrote text begins', () => {
    const sink = recorder();
    const sut = new StreamedText(sink);
    sut.attempt()('');
    const second = sut.attempt();
    expect(sink.restarts, 'nothing was written: nothing to take back').to.equal(0);
    second('half an ans');
    sut.attempt()('the whole answer');
    expect(sink.restarts).to.equal(1);
    expect(sink.deltas).to.deep.equal(['half an ans', 'the whole answer']);
  });
});
