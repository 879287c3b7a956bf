import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startChatHarness, type ChatHarness } from './chat-harness.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { toolResults, turnWithOneCall } from './support/approved-call.js';
import { startPlatformStub, type PlatformStub } from './support/platform-stub.js';

const TOKEN_PATH = '/api/plugins/ai-ops/platform-token/';
const SERVICE_TOKEN = 'service-token-0123456789';
const PERSONAL_TOKEN = 'personal-token-9876543210';

describe('personal platform tokens on an external platform', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let platform: PlatformStub;
  let sut: ChatHarness;
  let dataDir: string;

  /** One turn calling the API request tool once with `args` (approved when it waits); the result the model saw. */
  async function ask(key: string, args: Record<string, unknown>): Promise<string> {
    return toolResults((await turnWithOneCall(sut, key, args)).answering).join('\n');
  }

  before(async () => {
    redis = await startTestRedis();
    platform = await startPlatformStub();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-personal-'));
    sut = await startChatHarness(redis, {
      env: {
        AGENT_BUILTIN_TOOLS: 'true',
        AGENT_MAX_STEPS: '3',
        DATA_DIR: dataDir,
        EMBEDDING_MODEL: 'none',
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: SERVICE_TOKEN,
        PLATFORM_TOKEN_KEY: 'a-key-of-at-least-thirty-two-characters',
      },
    });
    await sut.model({ name: 'agent' });
  });
  after(async () => {
    await sut.close();
    await platform.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reads with the service token and refuses a write, saying how to store a personal token', async () => {
    const key = await sut.token('ivan');
    expect(await ask(key, { method: 'GET', path: '/api/dcim/devices/' })).to.contain('"status": 200');
    expect(platform.calls.at(-1)).to.deep.equal({ method: 'GET', path: '/api/dcim/devices/', authorization: `Token ${SERVICE_TOKEN}` });
    const calls = platform.calls.length;
    const refused = await ask(key, { method: 'POST', path: '/api/dcim/devices/', body: { name: 'r1' } });
    expect(refused).to.contain(TOKEN_PATH);
    expect(platform.calls).to.have.length(calls);
  });

  it("uses the user's stored token for reads and writes, and never returns it", async () => {
    const key = await sut.token('judy');
    expect((await sut.call('GET', TOKEN_PATH, { key })).body).to.deep.equal({ enabled: true, configured: false, updated: null });
    expect((await sut.call('PUT', TOKEN_PATH, { key, body: { token: PERSONAL_TOKEN } })).status).to.equal(204);
    const state = await sut.call('GET', TOKEN_PATH, { key });
    expect(state.body).to.include({ configured: true });
    expect(JSON.stringify(state.body)).to.not.contain(PERSONAL_TOKEN);

    const before = platform.calls.length;
    expect(await ask(key, { method: 'POST', path: '/api/dcim/devices/', body: { name: 'r1' } })).to.contain('"status": 201');
    // The write, then its read back, both with the user's token.
    expect(platform.calls.slice(before)).to.deep.equal([
      { method: 'POST', path: '/api/dcim/devices/', authorization: `Token ${PERSONAL_TOKEN}` },
      { method: 'GET', path: '/api/dcim/devices/1/', authorization: `Token ${PERSONAL_TOKEN}` },
    ]);
    await ask(key, { method: 'GET', path: '/api/dcim/devices/' });
    expect(platform.calls.at(-1)).to.include({ authorization: `Token ${PERSONAL_TOKEN}` });
    // Another user still reads with the service token.
    await ask(await sut.token('ken'), { method: 'GET', path: '/api/dcim/devices/' });
    expect(platform.calls.at(-1)).to.include({ authorization: `Token ${SERVICE_TOKEN}` });

    // Not kept in clear in Redis either.
    const stored = await redis.client.hgetall(`{${sut.prefix}:platform-tokens}:tokens`);
    expect(JSON.stringify(stored)).to.not.contain(PERSONAL_TOKEN);

    expect((await sut.call('DELETE', TOKEN_PATH, { key })).status).to.equal(204);
    expect((await sut.call('GET', TOKEN_PATH, { key })).body).to.deep.equal({ enabled: true, configured: false, updated: null });
  });
});
