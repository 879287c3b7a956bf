import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startChatHarness, type ChatHarness } from './chat-harness.js';
import { protocolOf, replyFor, type StubRequest } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { toolResults, turnWithOneCall } from './support/approved-call.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const BUILTIN = ['platform_openapi_api_request_schema', 'platform_dynamic_api_request', 'platform_kb_semantic_search'];

describe('the chat agent with the built-in platform tools', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let dataDir: string;

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-builtin-'));
    sut = await startChatHarness(redis, {
      env: { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', DATA_DIR: dataDir, EMBEDDING_MODEL: 'none' },
    });
    await sut.model({ name: 'agent' });
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** One turn in which the model calls the API request tool once with `args` (approved when it waits), then answers. */
  async function askWithCall(
    key: string,
    args: Record<string, unknown>,
  ): Promise<{ status: number; toolResult: string; offered: string[] }> {
    const { reply, offering, answering } = await turnWithOneCall(sut, key, args);
    const offered = (offering?.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
    return { status: reply.status, toolResult: toolResults(answering).join('\n'), offered };
  }

  it('offers the platform tools with no MCP server record', async () => {
    const key = await sut.token('engineer');
    const { status, offered } = await askWithCall(key, { method: 'GET', path: '/api/extras/statuses/' });
    expect(status).to.equal(200);
    expect(offered).to.include.members(BUILTIN);
  });

  it('finds the endpoints of this service with no PLATFORM_TOKEN: its own description is read in process', async () => {
    const key = await sut.token('searcher');
    const { reply, answering } = await turnWithOneCall(sut, key, { query: 'list the statuses' }, 'platform_openapi_api_request_schema');
    expect(reply.status).to.equal(200);
    expect(toolResults(answering).join('\n')).to.contain('/api/extras/statuses/');
  });

  it("acts with the asking user's rights: a chat-only user's agent gets the 403 the user would get", async () => {
    const chatOnly = await sut.token('chat-only');
    const direct = await sut.call('GET', '/api/extras/secrets/', { key: chatOnly });
    expect(direct.status).to.equal(403);
    const { status, toolResult } = await askWithCall(chatOnly, { method: 'GET', path: '/api/extras/secrets/' });
    expect(status).to.equal(200);
    expect(toolResult).to.contain('403');
    expect(toolResult).to.not.contain(sut.secret.name);
  });

  it('lets a user with the permission read what they may read', async () => {
    const reader = await sut.token('secret-reader', ['ai_ops.chat', 'extras.view_secret']);
    const { toolResult } = await askWithCall(reader, { method: 'GET', path: '/api/extras/secrets/' });
    expect(toolResult).to.contain(sut.secret.name);
  });

  it('writes only what the user may write', async () => {
    const body = { name: 'made-by-agent', provider: 'ollama' };
    const chatOnly = await sut.token('chat-only-writer');
    const refused = await askWithCall(chatOnly, { method: 'POST', path: '/api/plugins/ai-ops/llm-models/', body });
    expect(refused.toolResult).to.contain('403');
    expect(await sut.records.llmModels.list({ limit: 10, offset: 0, filters: { name: 'made-by-agent' } })).to.have.property('count', 0);
    const writer = await sut.token('writer', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    const made = await askWithCall(writer, { method: 'POST', path: '/api/plugins/ai-ops/llm-models/', body });
    expect(made.toolResult).to.contain('"status": 201');
    expect(await sut.records.llmModels.list({ limit: 10, offset: 0, filters: { name: 'made-by-agent' } })).to.have.property('count', 1);
  });

  it("refuses the service's control plane to the agent before any plan: no other turn's approval, no token minted", async () => {
    const admin = await sut.records.tokens.create({
      username: 'agent-admin',
      superuser: true,
      permissions: [],
      writeEnabled: true,
      expires: null,
    });
    const tokensBefore = (await sut.records.tokens.list()).length;
    const calls: Record<string, unknown>[] = [
      {
        method: 'POST',
        path: '/plugins/ai-ops/api/chat/jobs/another-turn/approvals/',
        body: { decisions: [{ id: 'call_1', approve: true }] },
      },
      { method: 'POST', path: '/api/users/tokens/', body: { user: 'minted-by-agent' } },
      { method: 'POST', path: '/api//Users/%74okens/', body: { user: 'minted-by-agent' } },
      { method: 'POST', path: '/api/users/tokens/', body: { user: 'minted-by-agent' }, dry_run: true },
      { method: 'GET', path: '/plugins/ai-ops/api/chat/sessions/' },
      { method: 'PUT', path: '/api/plugins/ai-ops/platform-token/', body: { token: 'x'.repeat(40) } },
    ];
    for (const call of calls) {
      const { status, toolResult } = await askWithCall(admin.key, call);
      // Refused at review: the turn never waits for an approval, and the model reads why.
      expect(status, String(call.path)).to.equal(200);
      expect(toolResult, String(call.path)).to.contain("this service's control plane");
    }
    expect((await sut.records.tokens.list()).length).to.equal(tokensBefore);
  });

  it('revokes every delegated credential when its turn ends, and never stores it in the session', async () => {
    const key = await sut.token('auditor');
    const reply = await sut.call('POST', CHAT, { key, body: { message: 'hello' } });
    expect(reply.status).to.equal(200);
    const tokens = await sut.records.tokens.list();
    expect(tokens.filter((token) => token.description.includes('(delegated)'))).to.deep.equal([]);
  });

  it('refuses a knowledge-base search to a user without ai_ops.view_kb', async () => {
    const key = await sut.token('no-kb');
    const first = sut.stub.requests.length;
    sut.stub.respondWith(
      (request: StubRequest) =>
        replyFor(protocolOf(request.path), '', [{ id: 'call_1', name: 'platform_kb_semantic_search', arguments: { query: 'vlan' } }]),
      (request: StubRequest) => replyFor(protocolOf(request.path), 'done'),
    );
    await sut.call('POST', CHAT, { key, body: { message: 'search' } });
    expect(toolResults(sut.stub.requests[first + 1]).join('\n')).to.contain('ai_ops.view_kb');
  });
});
