import { expect } from 'chai';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { OAuthHealthChecker } from '../../src/health/adapters/oauth-health-checker.adapter.js';
import { readEvents, startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { startOAuthFixture, TEST_USER_HEADER, type OAuthFixture } from '../support/mcp-fixtures/oauth-fixture.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures/http-fixture.js';
import { httpServerRecord } from '../support/mcp-fixtures/server-records.js';
import { replyFor } from '../support/provider-stubs.js';
import { loopbackOutbound } from '../support/outbound.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
/** The service's address as users reach it: the callback the authorization server sends them to is on it. */
const PUBLIC_URL = 'https://aiops.example.test';

describe('OAuth MCP servers, each user with their own account', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let vault: OAuthFixture;
  let model: string;
  let serverId: string;
  const keys: Record<string, string> = {};

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, {
      env: { PUBLIC_URL, PLATFORM_TOKEN_KEY: 'a-key-that-seals-tokens-0123456789abcdef', AGENT_MAX_STEPS: '3' },
    });
    vault = await startOAuthFixture({ scopes: ['vault.read'] });
    serverId = (
      await sut.records.mcpServers.create(
        { name: 'vault', url: vault.url, auth: 'oauth', status: 'Healthy', approval: 'never' } as never,
        OPERATOR,
      )
    ).id;
    model = (await sut.model({ name: 'oauth-model', is_default: false })).name;
    for (const user of ['alice', 'bob', 'carol']) keys[user] = await sut.token(user, ['ai_ops.chat', 'ai_ops.view_mcpserver']);
  });
  after(async () => {
    await sut.close();
    await vault.close();
    await redis.destroy();
  });

  /** Signs `user` in as a browser would: to the authorization URL (the test server approves them), then back to the callback. */
  const signIn = async (user: string, authorizationUrl: string) => {
    const approved = await fetch(authorizationUrl, { headers: { [TEST_USER_HEADER]: user }, redirect: 'manual' });
    expect(approved.status).to.equal(302);
    const back = new URL(approved.headers.get('location')!);
    expect(back.origin).to.equal(PUBLIC_URL);
    return fetch(`${sut.baseUrl}${back.pathname}${back.search}`);
  };
  const connect = async (user: string) => {
    const started = await sut.call('POST', `${SERVERS}${serverId}/connect/`, { key: keys[user]! });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    return started.body.authorization_url as string;
  };
  /** A turn whose model calls `whoami` once, then answers; its events and its job view. */
  const ask = async (user: string, callsTool = true) => {
    sut.stub.respondWith(
      ...(callsTool ? [replyFor('openai', '', [{ id: 'call_1', name: 'whoami', arguments: {} }])] : []),
      replyFor('openai', 'done'),
    );
    const before = sut.stub.requests.length;
    const accepted = await sut.call('POST', CHAT, {
      key: keys[user]!,
      body: { message: 'who am I?', model },
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(202);
    const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${accepted.body.job_id}/events`, {
      headers: { authorization: `Token ${keys[user]}` },
    });
    const events = await readEvents(stream);
    const view = await sut.call('GET', `${CHAT}jobs/${accepted.body.job_id}/`, { key: keys[user]! });
    const offered =
      (sut.stub.requests[before]!.body.tools as { function: { name: string } }[] | undefined)?.map((tool) => tool.function.name) ?? [];
    return { events, view: view.body, offered };
  };

  it('a user who has not connected gets connect_required with where to sign in, not an error', async () => {
    const { events, view, offered } = await ask('carol', false);
    expect(offered).to.not.include('whoami');
    const notice = events.find(([name]) => name === 'connect_required');
    expect(notice, JSON.stringify(events)).to.not.equal(undefined);
    expect(notice![1]).to.include({ server: 'vault', server_id: serverId });
    expect(notice![1].authorization_url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(events.at(-1)![0]).to.equal('completed');
    expect(view.status).to.equal('completed');
    expect(view.connect_required).to.have.length(1);
    expect(view.connect_required[0].server_id).to.equal(serverId);
  });

  it("two users connect their own accounts; each turn reaches the server with that user's token", async () => {
    const aliceUrl = new URL(await connect('alice'));
    // PKCE, the resource indicator and the scope the server's challenge asked for, all by the SDK.
    expect(aliceUrl.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(aliceUrl.searchParams.get('resource')).to.equal(`${vault.url}/mcp`);
    expect(aliceUrl.searchParams.get('scope')).to.equal('vault.read');
    expect(aliceUrl.searchParams.get('redirect_uri')).to.equal(`${PUBLIC_URL}/api/plugins/ai-ops/mcp-oauth/callback/`);
    expect((await signIn('alice', aliceUrl.href)).status).to.equal(200);
    expect((await signIn('bob', await connect('bob'))).status).to.equal(200);
    // One dynamic registration serves every user.
    expect(vault.clients).to.have.length(1);

    const listed = async (user: string) =>
      (await sut.call('GET', SERVERS, { key: keys[user]! })).body.results.find((server: { id: string }) => server.id === serverId);
    expect((await listed('alice')).connected).to.equal(true);
    expect((await listed('carol')).connected).to.equal(false);

    const alice = await ask('alice');
    expect(alice.offered).to.include('whoami');
    expect(vault.calls.at(-1)).to.deep.equal({ subject: 'alice', token: vault.issued.get('alice')!.at(-1) });
    await ask('bob');
    expect(vault.calls.at(-1)).to.deep.equal({ subject: 'bob', token: vault.issued.get('bob')!.at(-1) });

    // No token in any answer the users read, nor in Redis as it is stored.
    const shown = JSON.stringify([alice.events, alice.view, await listed('alice')]);
    const stored = JSON.stringify(
      await Promise.all((await redis.client.keys(`{${sut.prefix}:mcp-oauth}*`)).map((key) => redis.client.dump(key))),
    );
    for (const token of [...vault.issued.values()].flat()) {
      expect(shown).to.not.include(token);
      expect(stored).to.not.include(token);
    }
  });

  it('an expired access token is refreshed by the SDK within the turn', async () => {
    const refreshes = vault.refreshes;
    vault.expireAccessTokens();
    const { events } = await ask('alice');
    expect(events.filter(([name]) => name === 'tool_result').map(([, data]) => data.ok)).to.deep.equal([true]);
    expect(vault.refreshes).to.equal(refreshes + 1);
    expect(vault.calls.at(-1)!.subject).to.equal('alice');
  });

  it('a revoked refresh token asks the user to connect again', async () => {
    vault.revokeAll();
    const { events } = await ask('bob');
    expect(events.map(([name]) => name)).to.include('connect_required');
    expect((await signIn('bob', await connect('bob'))).status).to.equal(200);
    const again = await ask('bob');
    expect(vault.calls.at(-1)!.subject, JSON.stringify(again.events)).to.equal('bob');
  });

  it('a state is used once: the callback replayed is refused', async () => {
    const approved = await fetch(await connect('carol'), { headers: { [TEST_USER_HEADER]: 'carol' }, redirect: 'manual' });
    const back = new URL(approved.headers.get('location')!);
    const callback = `${sut.baseUrl}${back.pathname}${back.search}`;
    expect((await fetch(callback)).status).to.equal(200);
    const replayed = await fetch(callback);
    expect(replayed.status).to.equal(400);
    expect(await replayed.text()).to.include('unknown, used or expired');
    // A made-up state changes nobody's account either.
    expect((await fetch(`${sut.baseUrl}/api/plugins/ai-ops/mcp-oauth/callback/?state=forged&code=x`)).status).to.equal(400);
  });

  it('publishes its client ID metadata document on its https PUBLIC_URL, to anyone, cacheable; authorization servers without such documents get a registration', async () => {
    const document = `${PUBLIC_URL}/api/plugins/ai-ops/mcp-oauth/client-metadata/`;
    const served = await fetch(`${sut.baseUrl}/api/plugins/ai-ops/mcp-oauth/client-metadata/`);
    expect(served.status).to.equal(200);
    expect(served.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(await served.json()).to.deep.equal({
      client_id: document,
      client_name: 'aiops',
      redirect_uris: [`${PUBLIC_URL}/api/plugins/ai-ops/mcp-oauth/callback/`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    // This server's authorization server does not advertise client_id_metadata_document_supported.
    const signInAt = new URL(await connect('carol'));
    expect(signInAt.searchParams.get('client_id')).to.not.equal(document);
    expect(vault.clients.map((client) => client.client_id)).to.include(signInAt.searchParams.get('client_id'));
  });

  it("disconnecting forgets the user's tokens", async () => {
    expect((await sut.call('DELETE', `${SERVERS}${serverId}/connect/`, { key: keys.carol! })).status).to.equal(204);
    const listed = (await sut.call('GET', `${SERVERS}${serverId}/`, { key: keys.carol! })).body;
    expect(listed.connected).to.equal(false);
  });

  it('an authorization server the metadata points at on an internal host is refused', async () => {
    const steering = await startOAuthFixture({ authorizationServer: 'http://169.254.169.254/' });
    try {
      const { id } = await sut.records.mcpServers.create(
        { name: 'steering', url: steering.url, auth: 'oauth', status: 'Healthy' } as never,
        OPERATOR,
      );
      const refused = await sut.call('POST', `${SERVERS}${id}/connect/`, { key: keys.alice! });
      expect(refused.status).to.equal(502);
      expect(refused.body.detail).to.include('169.254.169.254');
      expect(steering.clients).to.deep.equal([]);
    } finally {
      await steering.close();
    }
  });

  it("a record: OAuth over HTTP only; a service account and a client secret are a superuser's", async () => {
    const writer = { superuser: false };
    const refusal = (fields: Record<string, unknown>, actor = writer) =>
      sut.records.mcpServers.create({ name: `r-${Math.random().toString(36).slice(2)}`, url: vault.url, ...fields } as never, actor).then(
        () => 'created',
        (error: Error) => error.message,
      );
    expect(await refusal({ protocol: 'stdio', command: 'x', url: '', auth: 'oauth' }, OPERATOR)).to.match(/OAuth is spoken over HTTP/);
    expect(
      await refusal({ auth: 'oauth', oauth_grant: 'client_credentials', oauth_client_id: 'c', oauth_client_secret_key: 's' }),
    ).to.match(/service account/);
    expect(await refusal({ auth: 'oauth', oauth_client_id: 'c', oauth_client_secret_key: 'some-secret' })).to.match(/only a superuser/i);
    expect(await refusal({ auth: 'oauth', oauth_client_id: 'registered-client', url: 'https://tools.example.test/' })).to.equal('created');
  });

  it('the health check of an OAuth server needs no user: 401 with protected resource metadata is reachable', async () => {
    const checker = new OAuthHealthChecker(loopbackOutbound());
    const probe = await checker.check({ ...httpServerRecord('vault', vault.url), auth: 'oauth', destination_trusted: true }, 5_000);
    expect(probe).to.include({ ok: true, error: null });
    let plain: HttpFixture | undefined;
    try {
      plain = await startHttpFixture({ label: 'plain' });
      const open = await checker.check({ ...httpServerRecord('plain', plain.url), auth: 'oauth', destination_trusted: true }, 5_000);
      expect(open.ok).to.equal(false);
      expect(open.error).to.include('401');
    } finally {
      await plain?.close();
    }
  });
});
