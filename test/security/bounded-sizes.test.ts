import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SimpleGitSource } from '../../src/knowledge/adapters/simple-git.adapter.js';
import { truncateWithMarker } from '../../src/chat/agent/truncate.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { createRemote } from '../knowledge/support/git-remote.js';
import { openAiCompletion } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const MODELS = '/api/plugins/ai-ops/llm-models/';

/** `{"a": {"a": ... {}}}`, `depth` objects deep. */
const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

// Sizes, depths and leftovers that once gave a 500 or grew a store without bound.
describe('security: sizes, depths and leftovers are bounded', () => {
  let redis: TestRedis;
  let sut: ChatHarness;
  let alice: string;
  let admin: string;
  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, { env: { CHAT_MESSAGE_MAX_CHARS: '10000', PROVIDER_MAX_RESPONSE_BYTES: '4194304' } });
    alice = await sut.token('alice');
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null }))
      .key;
    await sut.model();
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
  });

  it('stores and returns a 3,000,000-character answer cut to CHAT_MESSAGE_MAX_CHARS with a marker', async () => {
    const answer = 'z'.repeat(3_000_000);
    sut.stub.respondWith({ body: openAiCompletion(answer) });
    const reply = await sut.call('POST', CHAT, { key: alice, body: { message: 'say a lot' } });
    expect(reply.status).to.equal(200);
    expect(reply.body.response).to.equal(truncateWithMarker(answer, 10_000));
    const session = await sut.call('GET', `${CHAT}sessions/${reply.body.session_id}/`, { key: alice });
    expect(session.body.messages.at(-1).content).to.have.length.lessThan(10_100);
  });

  it('refuses an answer body over PROVIDER_MAX_RESPONSE_BYTES with a 502, and a malformed answer with a 502', async () => {
    sut.stub.respondWith({ body: openAiCompletion('y'.repeat(5_000_000)) });
    const huge = await sut.call('POST', CHAT, { key: alice, body: { message: 'more' } });
    expect(huge.status).to.equal(502);
    expect(huge.body.detail).to.include('larger than 4194304 bytes (PROVIDER_MAX_RESPONSE_BYTES)');
    sut.stub.respondWith({ raw: '{"choices": "not a list"', headers: { 'content-type': 'text/event-stream' } });
    const malformed = await sut.call('POST', CHAT, { key: alice, body: { message: 'hm' } });
    expect(malformed.status).to.equal(502);
    expect(malformed.body.detail).to.include("the provider's answer could not be read");
  });

  it('answers JSON nested deeper than 400 levels with a 400 before parsing it', async () => {
    const deep = await sut.call('POST', MODELS, { key: admin, body: `{"name": "deep", "model_config": ${nested(5_000)}}` });
    expect(deep.status).to.equal(400);
    expect(deep.body).to.deep.equal({ non_field_errors: ['JSON nesting is deeper than 400 levels.'] });
    // Brackets inside strings do not count.
    expect((await sut.call('POST', MODELS, { key: admin, body: { name: 'brackets', system_prompt: '[{'.repeat(500) } })).status).to.equal(
      201,
    );
  });

  it('answers a knowledge-base branch that looks like an option with a 400 naming the field', async () => {
    const refused = await sut.call('POST', '/api/plugins/ai-ops/kb/repos/', {
      key: admin,
      body: { name: 'acme/tools', branch: '--upload-pack=touch /tmp/pwned' },
    });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.have.property('branch');
  });

  it('never echoes the Host header into Location or status_url', async () => {
    const accepted = await sut.call('POST', CHAT, {
      key: alice,
      body: { message: 'later' },
      headers: { prefer: 'respond-async', host: 'attacker.example' },
    });
    expect(accepted.status).to.equal(202);
    expect(accepted.body.status_url).to.equal(`${CHAT}jobs/${accepted.body.job_id}/`);
    expect(accepted.headers.get('location')).to.equal(accepted.body.status_url);
  });

  it("removes a killed clone's leftovers on the next clone", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'aiops-clone-leftovers-'));
    try {
      const remote = createRemote(root, 'acme/docs', { 'README.md': '# Docs\n' });
      const dir = path.join(root, 'repos', 'acme', 'docs');
      const leftover = `${dir}.clone-deadbeef`;
      mkdirSync(path.join(leftover, '.git'), { recursive: true });
      writeFileSync(path.join(leftover, 'big.pack'), 'x'.repeat(10_000));
      await new SimpleGitSource({ timeoutMs: 20_000 }).sync({ url: `${remote.baseUrl}/acme/docs.git`, branch: 'main', dir });
      expect(existsSync(leftover)).to.equal(false);
      expect(existsSync(path.join(dir, 'README.md'))).to.equal(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
