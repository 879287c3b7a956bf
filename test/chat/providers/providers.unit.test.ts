import { expect } from 'chai';
import type { AccessToken, TokenCredential } from '@azure/identity';
import {
  ProviderError,
  type ChatMessage,
  type ProviderCallPolicy,
  type ProviderTarget,
  type ToolDefinition,
} from '../../../src/chat/providers/provider.port.js';
import { huggingFaceBody } from '../../../src/chat/providers/huggingface.provider.js';
import { ProviderRegistry } from '../../../src/chat/providers/provider-registry.adapter.js';
import { loopbackOutbound } from '../../support/outbound.js';
import { startStubRegistry } from './support/stub-registry.js';
import {
  anthropicMessage,
  errorReply,
  ollamaChat,
  openAiCompletion,
  startProviderStub,
  type ProviderStub,
} from '../../support/provider-stubs.js';

const KEY = 'sk-test-secret-value-0123456789';
const POLICY: ProviderCallPolicy = { timeoutMs: 5_000, maxRetries: 2 };
const HISTORY: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
  { role: 'user', content: 'second question' },
];
const TOOL: ToolDefinition = {
  name: 'device_lookup',
  description: 'Find a device by name',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

describe('LLM providers against protocol stubs', () => {
  let stub: ProviderStub;
  let registry: ProviderRegistry;

  beforeEach(async () => {
    ({ stub, registry } = await startStubRegistry(KEY));
  });
  afterEach(async () => {
    await stub.close();
  });

  const target = (overrides: Partial<ProviderTarget>): ProviderTarget => ({
    provider: 'openai',
    model: 'gpt-test',
    hostedEndpoint: stub.url,
    apiVersion: '',
    credential: KEY,
    ...overrides,
  });

  it('openai: POST /v1/chat/completions with a Bearer key, history, temperature, model_config and function tools', async () => {
    stub.respondWith({ body: openAiCompletion('', [{ id: 'call_1', name: 'device_lookup', arguments: { name: 'r1' } }]) });
    const provider = registry.create(target({ hostedEndpoint: `${stub.url}/v1` }), POLICY);
    const reply = await provider.chat({ messages: HISTORY, tools: [TOOL], temperature: 0.3, options: { max_tokens: 64, top_p: 0.9 } });
    const [request] = stub.requests;
    expect(request?.path).to.equal('/v1/chat/completions');
    expect(request?.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(request?.body).to.include({ model: 'gpt-test', temperature: 0.3, max_tokens: 64, top_p: 0.9, stream: false });
    expect(request?.body.messages).to.deep.equal(HISTORY);
    expect(request?.body.tools).to.deep.equal([
      { type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters } },
    ]);
    expect(reply.toolCalls).to.deep.equal([{ id: 'call_1', name: 'device_lookup', arguments: { name: 'r1' } }]);
    expect(reply.usage).to.deep.equal({ input_tokens: 11, output_tokens: 7 });
  });

  it('openai: a model without a secret (a local server) sends no Authorization header', async () => {
    const keyless = await startProviderStub();
    try {
      await registry
        .create(target({ hostedEndpoint: `${keyless.url}/v1`, credential: undefined }), POLICY)
        .chat({ messages: HISTORY, tools: [], temperature: 0, options: {} });
      expect(keyless.requests[0]?.headers).to.not.have.property('authorization');
    } finally {
      await keyless.close();
    }
  });

  it('openai: sends tool calls and tool results back in its own format', async () => {
    const provider = registry.create(target({ hostedEndpoint: `${stub.url}/v1` }), POLICY);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'where is r1?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'device_lookup', arguments: { name: 'r1' } }] },
      { role: 'tool', tool_call_id: 'call_1', name: 'device_lookup', content: '{"site":"ams"}' },
    ];
    await provider.chat({ messages, tools: [TOOL], temperature: 0, options: {} });
    expect(stub.requests[0]?.body.messages.slice(1)).to.deep.equal([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'device_lookup', arguments: '{"name":"r1"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"site":"ams"}' },
    ]);
  });

  it('azure_ai: the deployment URL with api-version and the api-key header', async () => {
    const provider = registry.create(target({ provider: 'azure_ai', model: 'gpt4o-deploy', apiVersion: '2024-06-01' }), POLICY);
    const reply = await provider.chat({ messages: HISTORY, tools: [], temperature: 0.5, options: {} });
    const [request] = stub.requests;
    expect(request?.path).to.equal('/openai/deployments/gpt4o-deploy/chat/completions');
    expect(request?.query.get('api-version')).to.equal('2024-06-01');
    expect(request?.headers['api-key']).to.equal(KEY);
    expect(request?.headers.authorization).to.equal(undefined);
    expect(reply.content).to.equal('echo: second question');
  });

  it('azure_ai: a directory identity in the secret signs in with Entra and sends a bearer token', async () => {
    const seen: string[] = [];
    const credential: TokenCredential = {
      getToken: async (scopes): Promise<AccessToken> => {
        seen.push(String(scopes));
        return { token: KEY, expiresOnTimestamp: Date.now() + 3_600_000 };
      },
    };
    const azure = new ProviderRegistry({
      ollamaHost: stub.url,
      custom: new Map(),
      azureCredential: () => credential,
      outbound: loopbackOutbound(),
    });
    const identity = JSON.stringify({ tenant_id: 't1', client_id: 'c1', client_secret: 'shh' });
    await azure
      .create(target({ provider: 'azure_ai', model: 'dep', credential: identity }), POLICY)
      .chat({ messages: HISTORY, tools: [], temperature: 0, options: {} });
    expect(stub.requests[0]?.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(stub.requests[0]?.headers['api-key']).to.equal(undefined);
    expect(seen).to.deep.equal(['https://cognitiveservices.azure.com/.default']);
  });

  it('anthropic: POST /v1/messages with x-api-key and anthropic-version, system apart, tool_use and tool_result blocks', async () => {
    stub.respondWith({ body: anthropicMessage('Looking.', [{ id: 'toolu_1', name: 'device_lookup', arguments: { name: 'r2' } }]) });
    const provider = registry.create(target({ provider: 'anthropic', model: 'claude-test' }), POLICY);
    const messages: ChatMessage[] = [
      ...HISTORY,
      { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_0', name: 'device_lookup', arguments: { name: 'r1' } }] },
      { role: 'tool', tool_call_id: 'toolu_0', name: 'device_lookup', content: 'ams' },
    ];
    const reply = await provider.chat({ messages, tools: [TOOL], temperature: 1.5, options: {} });
    const [request] = stub.requests;
    expect(request?.path).to.equal('/v1/messages');
    expect(request?.headers['x-api-key']).to.equal(KEY);
    expect(request?.headers['anthropic-version']).to.be.a('string');
    expect(request?.body).to.include({ model: 'claude-test', system: 'You are terse.', max_tokens: 1024, temperature: 1 });
    expect(request?.body.messages.slice(-2)).to.deep.equal([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_0', name: 'device_lookup', input: { name: 'r1' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'ams' }] },
    ]);
    expect(request?.body.tools[0]).to.deep.equal({ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters });
    expect(reply).to.deep.equal({
      content: 'Looking.',
      toolCalls: [{ id: 'toolu_1', name: 'device_lookup', arguments: { name: 'r2' } }],
      usage: { input_tokens: 13, output_tokens: 5 },
    });
  });

  it('ollama: POST /api/chat at hosted_endpoint, options with temperature and num_predict, tools, no key needed', async () => {
    stub.respondWith({ body: ollamaChat('', [{ name: 'device_lookup', arguments: { name: 'r3' } }]) });
    const provider = registry.create(target({ provider: 'ollama', model: 'llama3.1', credential: undefined }), POLICY);
    const reply = await provider.chat({
      messages: HISTORY,
      tools: [TOOL],
      temperature: 0.2,
      options: { max_tokens: 32, keep_alive: '5m' },
    });
    const [request] = stub.requests;
    expect(request?.path).to.equal('/api/chat');
    expect(request?.headers.authorization).to.equal(undefined);
    expect(request?.body).to.deep.include({
      model: 'llama3.1',
      stream: false,
      keep_alive: '5m',
      options: { num_predict: 32, temperature: 0.2 },
    });
    expect(request?.body.messages).to.deep.equal(HISTORY);
    expect(request?.body.tools[0].function.name).to.equal('device_lookup');
    expect(reply.toolCalls).to.have.length(1);
    expect(reply.toolCalls[0]).to.include({ name: 'device_lookup' });
    expect(reply.toolCalls[0]?.arguments).to.deep.equal({ name: 'r3' });
  });

  it("huggingface: model_config never supplies the SDK's own routing, credential or billing arguments", () => {
    const options = {
      max_tokens: 20,
      provider: 'together',
      endpointUrl: 'http://127.0.0.1:9/',
      accessToken: 'hf_other',
      billTo: 'someone',
      inference_provider: 'fireworks-ai',
    };
    const body = huggingFaceBody('meta-llama/Llama-3.1-8B-Instruct', { messages: HISTORY, tools: [], temperature: 0.7, options });
    expect(body).to.include({ max_tokens: 20, model: 'meta-llama/Llama-3.1-8B-Instruct' });
    expect(body).to.not.have.any.keys('provider', 'endpointUrl', 'accessToken', 'billTo', 'inference_provider');
  });

  it('huggingface: a dedicated endpoint gets /v1/chat/completions with the token as Bearer', async () => {
    const provider = registry.create(
      target({ provider: 'huggingface', model: 'meta-llama/Llama-3.1-8B-Instruct', hostedEndpoint: `${stub.url}/hf/ep1` }),
      POLICY,
    );
    const reply = await provider.chat({ messages: HISTORY, tools: [], temperature: 0.7, options: { max_tokens: 20 } });
    const [request] = stub.requests;
    expect(request?.path).to.equal('/hf/ep1/v1/chat/completions');
    expect(request?.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(request?.body).to.include({ model: 'meta-llama/Llama-3.1-8B-Instruct', temperature: 0.7, max_tokens: 20 });
    expect(reply.content).to.equal('echo: second question');
  });

  it('custom: a handler from CUSTOM_PROVIDERS formats the request and parses the answer', async () => {
    stub.respondWith({ body: { text: 'custom says hi' } });
    const provider = registry.create(target({ provider: 'custom', model: 'tiny' }), POLICY);
    const reply = await provider.chat({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      temperature: 0.1,
      options: { custom_provider: 'echo-json', seed: 7 },
    });
    const [request] = stub.requests;
    expect(request?.path).to.equal('/generate');
    expect(request?.headers['x-token']).to.equal(KEY);
    expect(request?.body).to.deep.equal({ model: 'tiny', prompt: 'user: hi', temperature: 0.1, seed: 7 });
    expect(reply).to.deep.equal({ content: 'custom says hi', toolCalls: [] });
  });

  it('retries 429 after the Retry-After the provider asked for, then 5xx with backoff', async () => {
    stub.respondWith(errorReply('openai', 429, 'slow down', { 'retry-after': '2' }), errorReply('openai', 503, 'overloaded'));
    const waits: number[] = [];
    const provider = registry.create(target({ hostedEndpoint: `${stub.url}/v1` }), {
      ...POLICY,
      sleep: async (ms: number) => void waits.push(ms),
    });
    const reply = await provider.chat({ messages: HISTORY, tools: [], temperature: 0, options: {} });
    expect(reply.content).to.equal('echo: second question');
    expect(stub.requests).to.have.length(3);
    expect(waits[0]).to.equal(2_000);
    expect(waits[1]).to.be.within(250, 1_000);
  });

  it('does not retry a rejected key, and never repeats the key in its message', async () => {
    const provider = registry.create(target({ hostedEndpoint: `${stub.url}/v1`, credential: `${KEY}-wrong` }), POLICY);
    const error = await provider.chat({ messages: HISTORY, tools: [], temperature: 0, options: {} }).then(
      () => expect.fail('should fail'),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ProviderError);
    expect((error as ProviderError).failure).to.equal('auth');
    expect((error as ProviderError).status).to.equal(401);
    expect((error as ProviderError).message).to.not.include(KEY);
    expect(stub.requests).to.have.length(1);
  });

  it('gives up on a provider that does not answer within the time limit', async () => {
    stub.respondWith({ hold: true });
    const provider = registry.create(target({ hostedEndpoint: `${stub.url}/v1` }), { timeoutMs: 200, maxRetries: 0 });
    const error = (await provider
      .chat({ messages: HISTORY, tools: [], temperature: 0, options: {} })
      .catch((e: unknown) => e)) as ProviderError;
    expect(error).to.be.instanceOf(ProviderError);
    expect(error.failure).to.equal('timeout');
  });

  it('refuses to build a provider that needs a key when the model names none', () => {
    expect(() => registry.create(target({ provider: 'anthropic', credential: undefined }), POLICY)).to.throw(
      ProviderError,
      /model_secret_key/,
    );
  });
});
