import { expect } from 'chai';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { readEvents, startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { replyFor } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startOAuthToolServer, type OAuthToolServer } from './support/oauth-tool-server.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
/** The service's address as users reach it: its OAuth client's metadata document and callback are on it. */
const PUBLIC_URL = 'https://aiops.example.test';

describe("the agent's own MCP client signs in to this service's tool server by OAuth", function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let tools: OAuthToolServer;
  let documents: string[];

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, {
      env: { PUBLIC_URL, PLATFORM_TOKEN_KEY: 'a-key-that-seals-tokens-0123456789abcdef', AGENT_MAX_STEPS: '3' },
    });
    documents = [];
    // The client metadata document is published on PUBLIC_URL; the test's network takes that name to the service.
    const publishedHere: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      documents.push(url);
      return fetch(url.replace(PUBLIC_URL, sut.baseUrl), init);
    };
    tools = await startOAuthToolServer(redis.client, sut.prefix, publishedHere);
  });
  after(async () => {
    await sut?.close();
    await tools?.close();
    await redis?.destroy();
  });

  it('connects with its client metadata document, the user consents, and a turn of that user is offered the tool server’s tools', async () => {
    const key = await sut.token('alice', ['ai_ops.chat', 'ai_ops.view_mcpserver', 'ai_ops.use_toolserver']);
    const { id } = await sut.records.mcpServers.create(
      { name: 'aiops-tools', url: tools.origin, auth: 'oauth', status: 'Healthy', approval: 'never' } as never,
      OPERATOR,
    );
    const started = await sut.call('POST', `${SERVERS}${id}/connect/`, { key });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const authorizationUrl = new URL(started.body.authorization_url as string);
    expect(authorizationUrl.origin).to.equal(tools.origin);
    // This authorization server takes client ID metadata documents: the client names its document, no registration.
    const document = `${PUBLIC_URL}/api/plugins/ai-ops/mcp-oauth/client-metadata/`;
    expect(authorizationUrl.searchParams.get('client_id')).to.equal(document);
    expect(authorizationUrl.searchParams.get('resource')).to.equal(tools.mcpUrl);

    // The consent page names the client by its document; alice signs in with her API token and allows it.
    const page = await (await fetch(authorizationUrl)).text();
    expect(documents).to.deep.equal([document]);
    expect(page).to.include('aiops').and.include(document);
    const consent = /name="consent" value="([^"]+)"/.exec(page)![1]!;
    const approved = await fetch(`${tools.origin}/consent`, {
      method: 'POST',
      body: new URLSearchParams({ consent, token: key, decision: 'approve' }),
      redirect: 'manual',
    });
    expect(approved.status).to.equal(302);
    const back = new URL(approved.headers.get('location')!);
    expect(back.origin).to.equal(PUBLIC_URL);
    expect((await fetch(`${sut.baseUrl}${back.pathname}${back.search}`)).status).to.equal(200);
    const listed = (await sut.call('GET', `${SERVERS}${id}/`, { key })).body;
    expect(listed.connected).to.equal(true);
    // The access token is alice's, named after the client.
    const issued = (await tools.records.tokens.list()).filter((token) => token.audience === tools.mcpUrl);
    expect(issued.map((token) => [token.username, token.description])).to.deep.equal([['alice', `OAuth: aiops (MCP client ${document})`]]);

    // Alice's turn is offered the tool server's tools, listed over her OAuth connection, and calls one.
    const model = (await sut.model({ name: 'tool-server-model', is_default: false })).name;
    sut.stub.respondWith(
      replyFor('openai', '', [{ id: 'call_1', name: 'platform_openapi_api_request_schema', arguments: { query: 'delete a device' } }]),
      replyFor('openai', 'done'),
    );
    const before = sut.stub.requests.length;
    const accepted = await sut.call('POST', CHAT, {
      key,
      body: { message: 'what can you do?', model },
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(202);
    const events = await readEvents(
      await fetch(`${sut.baseUrl}${CHAT}jobs/${accepted.body.job_id}/events`, { headers: { authorization: `Token ${key}` } }),
    );
    expect(events.map(([name]) => name)).to.not.include('connect_required');
    const offered = (sut.stub.requests[before]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(offered).to.include.members(['platform_openapi_api_request_schema', 'platform_kb_semantic_search']);
    // And a call of one goes through with her token.
    expect(events.filter(([name]) => name === 'tool_result').map(([, data]) => data.ok)).to.deep.equal([true]);
  });
});
