import { expect } from 'chai';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { PERMISSIONS, type Permission } from '../../src/records/auth/permissions.js';
import { startTestApi, type TestApi } from '../support/api.js';

const TOKENS = '/api/users/tokens/';

describe('API tokens over HTTP', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  it('creates a token whose key is answered once and works at once; lists it without the key; revokes it', async () => {
    const created = await sut.call('POST', TOKENS, {
      body: { user: 'noc-bot', permissions: ['ai_ops.view_llmmodel', 'ai_ops.chat'], write_enabled: false, description: 'dashboards' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const key = created.body.key as string;
    expect(key).to.match(/^[0-9a-f]{40}$/);
    expect(created.body).to.include({
      user: 'noc-bot',
      superuser: false,
      write_enabled: false,
      expires: null,
      description: 'dashboards',
      key_hint: key.slice(-4),
    });
    expect(created.body.permissions).to.deep.equal(['ai_ops.chat', 'ai_ops.view_llmmodel']);
    expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key })).status).to.equal(200);

    const list = await sut.call('GET', TOKENS);
    expect(list.status).to.equal(200);
    const listed = list.body.results.find((token: { id: string }) => token.id === created.body.id);
    expect(listed).to.include({ user: 'noc-bot', key_hint: key.slice(-4), display: `noc-bot (…${key.slice(-4)})` });
    expect(JSON.stringify(list.body)).to.not.include(key);
    expect(listed).to.not.have.any.keys('key', 'key_hash');

    expect((await sut.call('DELETE', `${TOKENS}${created.body.id}/`)).status).to.equal(204);
    expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key })).status).to.equal(401);
    expect((await sut.call('DELETE', `${TOKENS}${created.body.id}/`)).status).to.equal(404);
  });

  it('answers field errors for a bad user name, a past expiry and an unknown permission', async () => {
    const badUser = await sut.call('POST', TOKENS, { body: { user: 'has space' } });
    expect(badUser.status).to.equal(400);
    expect(Object.keys(badUser.body)).to.deep.equal(['user']);
    const past = await sut.call('POST', TOKENS, { body: { user: 'late', expires: '2001-01-01T00:00:00Z' } });
    expect(past.status).to.equal(400);
    expect(past.body).to.deep.equal({ expires: ['The expiry date is in the past.'] });
    const unknown = await sut.call('POST', TOKENS, { body: { user: 'x', permissions: ['ai_ops.everything'] } });
    expect(unknown.status).to.equal(400);
    expect(Object.keys(unknown.body)[0]).to.match(/^permissions/);
  });

  it('is for superusers only: a token with every permission is refused, and cannot mint itself a superuser', async () => {
    const everything = await sut.token({ permissions: [...PERMISSIONS] });
    for (const [method, path, body] of [
      ['GET', TOKENS, undefined],
      ['POST', TOKENS, { user: 'escalate', superuser: true }],
      ['DELETE', `${TOKENS}00000000-0000-4000-8000-000000000000/`, undefined],
    ] as const) {
      const denied = await sut.call(method, path, { key: everything, body });
      expect(denied.status, `${method} ${path}`).to.equal(403);
      expect(denied.body.detail).to.match(/superuser/);
    }
    expect((await sut.call('GET', TOKENS, { key: null })).status).to.equal(401);
  });

  it('tells any token, read-only included, who it is and what it may do', async () => {
    const permissions: Permission[] = ['ai_ops.chat', 'extras.view_secret'];
    const key = await sut.token({ username: 'reader', permissions, writeEnabled: false });
    const me = await sut.call('GET', `${TOKENS}me/`, { key });
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ user: 'reader', superuser: false, write_enabled: false, key_hint: key.slice(-4) });
    expect(me.body.permissions).to.deep.equal(permissions);
    expect((await sut.call('GET', `${TOKENS}me/`)).body).to.include({ user: 'admin', superuser: true });
    expect((await sut.call('GET', `${TOKENS}me/`, { key: null })).status).to.equal(401);
  });

  it("documents exactly the service's permissions", () => {
    const schema = loadOpenApiDocument().components?.schemas?.Permission as { enum: string[] };
    expect([...schema.enum].sort()).to.deep.equal([...PERMISSIONS].sort());
  });
});
