import { expect } from 'chai';
import type { Permission } from '../../src/records/auth/permissions.js';
import type { TokenRecord } from '../../src/records/auth/token.service.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { until } from '../support/until.js';

interface Operation {
  method: string;
  path: (ids: Record<string, string>) => string;
  permission: Permission;
  body?: (n: number) => unknown;
  ok: number;
}

const model = (n: number) => ({ name: `perm-model-${n}` });
const server = (n: number) => ({ name: `perm-server-${n}`, url: 'http://127.0.0.1:9/' });
const secret = (n: number) => ({ name: `perm-secret-${n}`, provider: 'environment-variable', parameters: { variable: 'X' } });

/** Every operation of the records API with the permission it needs. */
const OPERATIONS: Operation[] = [
  { method: 'GET', path: () => '/api/plugins/ai-ops/llm-models/', permission: 'ai_ops.view_llmmodel', ok: 200 },
  { method: 'POST', path: () => '/api/plugins/ai-ops/llm-models/', permission: 'ai_ops.add_llmmodel', body: model, ok: 201 },
  { method: 'GET', path: (ids) => `/api/plugins/ai-ops/llm-models/${ids.model}/`, permission: 'ai_ops.view_llmmodel', ok: 200 },
  {
    method: 'PATCH',
    path: (ids) => `/api/plugins/ai-ops/llm-models/${ids.model}/`,
    permission: 'ai_ops.change_llmmodel',
    body: () => ({ temperature: 1 }),
    ok: 200,
  },
  {
    method: 'PUT',
    path: (ids) => `/api/plugins/ai-ops/llm-models/${ids.model}/`,
    permission: 'ai_ops.change_llmmodel',
    body: () => ({ name: 'perm-model' }),
    ok: 200,
  },
  { method: 'DELETE', path: (ids) => `/api/plugins/ai-ops/llm-models/${ids.model}/`, permission: 'ai_ops.delete_llmmodel', ok: 204 },
  { method: 'GET', path: () => '/api/plugins/ai-ops/mcp-servers/', permission: 'ai_ops.view_mcpserver', ok: 200 },
  { method: 'POST', path: () => '/api/plugins/ai-ops/mcp-servers/', permission: 'ai_ops.add_mcpserver', body: server, ok: 201 },
  { method: 'GET', path: (ids) => `/api/plugins/ai-ops/mcp-servers/${ids.server}/`, permission: 'ai_ops.view_mcpserver', ok: 200 },
  {
    method: 'PATCH',
    path: (ids) => `/api/plugins/ai-ops/mcp-servers/${ids.server}/`,
    permission: 'ai_ops.change_mcpserver',
    body: () => ({ description: 'x' }),
    ok: 200,
  },
  {
    method: 'PUT',
    path: (ids) => `/api/plugins/ai-ops/mcp-servers/${ids.server}/`,
    permission: 'ai_ops.change_mcpserver',
    body: () => server(0),
    ok: 200,
  },
  { method: 'DELETE', path: (ids) => `/api/plugins/ai-ops/mcp-servers/${ids.server}/`, permission: 'ai_ops.delete_mcpserver', ok: 204 },
  { method: 'GET', path: () => '/api/extras/secrets/', permission: 'extras.view_secret', ok: 200 },
  { method: 'POST', path: () => '/api/extras/secrets/', permission: 'extras.add_secret', body: secret, ok: 201 },
  { method: 'GET', path: (ids) => `/api/extras/secrets/${ids.secret}/`, permission: 'extras.view_secret', ok: 200 },
  {
    method: 'PATCH',
    path: (ids) => `/api/extras/secrets/${ids.secret}/`,
    permission: 'extras.change_secret',
    body: () => ({ description: 'x' }),
    ok: 200,
  },
  {
    method: 'PUT',
    path: (ids) => `/api/extras/secrets/${ids.secret}/`,
    permission: 'extras.change_secret',
    body: () => secret(0),
    ok: 200,
  },
  { method: 'DELETE', path: (ids) => `/api/extras/secrets/${ids.secret}/`, permission: 'extras.delete_secret', ok: 204 },
  { method: 'GET', path: () => '/api/extras/statuses/', permission: 'extras.view_status', ok: 200 },
  { method: 'GET', path: (ids) => `/api/extras/statuses/${ids.status}/`, permission: 'extras.view_status', ok: 200 },
];

const SAFE = new Set(['GET', 'HEAD']);

describe('authentication and permissions', () => {
  let sut: TestApi;
  let counter = 0;

  before(async () => {
    // The matrix is about the permissions a route needs: the secret's variable is one others may name.
    sut = await startTestApi(undefined, { SECRET_ENV_ALLOW: 'X' });
  });
  after(async () => {
    await sut.close();
  });

  /**
   * Fresh records for each call, so deletes and renames never interfere. The model is someone
   * else's than a superuser's: renaming or deleting one whose destination a superuser set is
   * superuser business, whatever the permission (the security suite checks that).
   */
  async function ids(): Promise<Record<string, string>> {
    const n = ++counter;
    const modelAdder = await sut.token({ permissions: ['ai_ops.add_llmmodel'] });
    const [m, s, x, st] = await Promise.all([
      sut.call('POST', '/api/plugins/ai-ops/llm-models/', { key: modelAdder, body: model(1000 + n) }),
      sut.call('POST', '/api/plugins/ai-ops/mcp-servers/', { body: server(1000 + n) }),
      sut.call('POST', '/api/extras/secrets/', { body: secret(1000 + n) }),
      sut.call('GET', '/api/extras/statuses/?limit=1'),
    ]);
    return { model: m.body.id, server: s.body.id, secret: x.body.id, status: st.body.results[0].id };
  }

  function request(op: Operation, key: string | null, target: Record<string, string>) {
    return sut.call(op.method, op.path(target), { key, body: op.body?.(++counter) });
  }

  for (const op of OPERATIONS) {
    const label = `${op.method} ${op.path({ model: '{id}', server: '{id}', secret: '{id}', status: '{id}' })}`;

    it(`${label}: 401 without a token, 403 without ${op.permission}, ${op.ok} with it`, async () => {
      const target = await ids();
      const anonymous = await request(op, null, target);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body).to.deep.equal({ detail: 'Authentication credentials were not provided.' });

      const others = await sut.token({
        permissions: (['ai_ops.chat', 'extras.view_status'] satisfies Permission[]).filter((p) => p !== op.permission),
      });
      const denied = await request(op, others, target);
      expect(denied.status).to.equal(403);
      expect(denied.body.detail).to.include(op.permission);

      const allowed = await request(op, await sut.token({ permissions: [op.permission] }), target);
      expect(allowed.status).to.equal(op.ok);
    });

    if (!SAFE.has(op.method)) {
      it(`${label}: a read-only token is refused even with ${op.permission}`, async () => {
        const target = await ids();
        const readOnly = await sut.token({ permissions: [op.permission], writeEnabled: false });
        const refused = await request(op, readOnly, target);
        expect(refused.status).to.equal(403);
        expect(refused.body.detail).to.match(/read-only/);
      });
    }
  }

  it('a read-only superuser can read', async () => {
    const key = await sut.token({ superuser: true, writeEnabled: false });
    expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key })).status).to.equal(200);
    expect((await sut.call('POST', '/api/plugins/ai-ops/llm-models/', { key, body: model(9999) })).status).to.equal(403);
  });

  it('refuses unknown keys, expired tokens, malformed headers and revoked tokens', async () => {
    const path = '/api/extras/statuses/';
    expect((await sut.call('GET', path, { key: 'f'.repeat(40) })).body).to.deep.equal({ detail: 'Invalid token.' });
    const token = (expires: Date) =>
      sut.records.tokens.create({ username: 'temp', superuser: true, permissions: [], writeEnabled: true, expires });
    const valid = await token(new Date(Date.now() + 3_600_000));
    expect((await sut.call('GET', path, { key: valid.key })).status).to.equal(200);
    // No token can be created expired: one is made so in the store, as time would, before its first use.
    const expiring = await token(new Date(Date.now() + 3_600_000));
    const tokens = sut.collection<TokenRecord>('tokens', 'key_hash');
    expect(await tokens.swap(expiring.token, { ...expiring.token, expires: '2000-01-01T00:00:00.000Z' })).to.equal('ok');
    const expired = await sut.call('GET', path, { key: expiring.key });
    expect(expired.status).to.equal(401);
    expect(expired.body.detail).to.match(/expired/);

    for (const header of ['Bearer abc', 'Token', 'Token a b', 'Basic dXNlcjpwYXNz']) {
      const response = await sut.call('GET', path, { key: null, headers: { authorization: header } });
      expect(response.status, header).to.equal(401);
    }
    const revocable = await sut.records.tokens.create({
      username: 'gone',
      superuser: true,
      permissions: [],
      writeEnabled: true,
      expires: null,
    });
    await sut.records.tokens.revoke(revocable.token.id);
    expect((await sut.call('GET', path, { key: revocable.key })).status).to.equal(401);
  });

  it("refuses a chat turn's delegated key on the control plane, however the path is spelt, and lets it reach the rest", async () => {
    const { token } = await sut.records.tokens.create({
      username: 'delegating',
      superuser: true,
      permissions: [],
      writeEnabled: true,
      expires: null,
    });
    const delegated = await sut.records.tokens.delegate(token.id, { ttlMs: 60_000, description: 'a turn (delegated)', workId: 'turn-cp' });
    const key = delegated.key;
    expect((await sut.call('GET', '/api/extras/statuses/', { key })).status).to.equal(200);
    const refused: [string, string, unknown?][] = [
      ['POST', '/api/users/tokens/', { user: 'minted-by-agent' }],
      ['GET', '/api/users/tokens/'],
      ['GET', '/api/users/tokens/me/'],
      ['POST', '/API/Users/Tokens/', { user: 'minted-by-agent' }],
      ['POST', '/api/users/%74okens/', { user: 'minted-by-agent' }],
      ['POST', '/plugins/ai-ops/api/chat/jobs/another-turn/approvals/', { decisions: [{ id: 'call_1', approve: true }] }],
      ['GET', '/plugins/ai-ops/api/chat/sessions/'],
      ['POST', '/plugins/ai-ops/api/chat/', { message: 'hello' }],
      ['GET', '/api/plugins/ai-ops/platform-token/'],
    ];
    for (const [method, path, body] of refused) {
      const answer = await sut.call(method, path, { key, body });
      expect(answer.status, `${method} ${path}`).to.be.oneOf([403, 404]);
      if (answer.status === 403) expect(answer.body.detail, path).to.contain('control plane');
    }
    expect((await sut.call('POST', '/api/users/tokens/', { key, body: { user: 'minted-by-agent' } })).status).to.equal(403);
    expect((await sut.records.tokens.list()).filter((made) => made.username === 'minted-by-agent')).to.deep.equal([]);
    await delegated.revoke();
  });

  it('stops honouring a token as soon as it is revoked elsewhere, even one it has just seen', async () => {
    const { key, token } = await sut.records.tokens.create({
      username: 'cached',
      superuser: true,
      permissions: [],
      writeEnabled: true,
      expires: null,
    });
    for (let i = 0; i < 3; i++) expect((await sut.call('GET', '/api/extras/statuses/', { key })).status).to.equal(200);
    // Revoked through another connection, as `aiops token revoke` would from another process.
    await sut.records.tokens.revoke(token.id);
    // The revocation reaches the API over pub/sub: the next requests see it within moments.
    await until(
      async () => (await sut.call('GET', '/api/extras/statuses/', { key })).status === 401,
      1_000,
      'the revoked token to be refused',
    );
  });

  it('accepts the lower-case scheme and keeps /status open', async () => {
    expect(
      (await sut.call('GET', '/api/extras/statuses/', { key: null, headers: { authorization: `token ${sut.adminKey}` } })).status,
    ).to.equal(200);
    expect((await sut.call('GET', '/status', { key: null })).status).to.equal(200);
  });

  it('refuses an unauthenticated request before looking at its body', async () => {
    const response = await sut.call('POST', '/api/plugins/ai-ops/llm-models/', { key: null, body: { temperature: 9 } });
    expect(response.status).to.equal(401);
  });

  it('stores only a hash of each key', async () => {
    const key = await sut.token({ superuser: true });
    const dump = JSON.stringify(await sut.redis.client.hgetall(`{${sut.keyPrefix}:tokens}:records`));
    expect(dump).to.not.include(key);
  });
});
