import { expect } from 'chai';
import { startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startChatHarness, STUB_KEY, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';

describe('a slow provider', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let slow: ProviderStub;

  before(async () => {
    redis = await startTestRedis();
    // A provider that never answers: every turn on it must end by timeout, not hang a worker.
    slow = await startProviderStub({ apiKey: STUB_KEY });
    slow.respondWith(...Array.from({ length: 50 }, () => ({ hold: true })));
    sut = await startChatHarness(redis, {
      waitMs: 20_000,
      env: { PROVIDER_TIMEOUT_S: '1', PROVIDER_MAX_RETRIES: '0', AGENT_TIMEOUT_S: '3' },
    });
  });
  after(async () => {
    await sut.close();
    await slow.close();
    await redis.destroy();
  });

  it('times its turns out with a 502 while other users’ turns keep flowing', async () => {
    const slowModel = await sut.model({ name: 'slow-model', hosted_endpoint: `${slow.url}/v1`, is_default: false });
    const fastModel = await sut.model({ name: 'fast-model' });
    const stuckUser = await sut.token('stuck');
    const otherUser = await sut.token('other');

    // Four slow turns take half of the worker's eight slots for as long as the provider stalls.
    const stuck = Array.from({ length: 4 }, (_, i) =>
      sut.call('POST', CHAT, { key: stuckUser, body: { message: `slow ${i}`, model: slowModel.name } }),
    );
    let slowSettled = false;
    const settled = Promise.all(stuck).then((replies) => {
      slowSettled = true;
      return replies;
    });
    await slow.received(4);

    const flowing = [];
    for (let i = 0; i < 10; i++)
      flowing.push(await sut.call('POST', CHAT, { key: otherUser, body: { message: `fast ${i}`, model: fastModel.name } }));
    // The other user's ten turns were all answered while the slow ones were still waiting.
    expect(slowSettled).to.equal(false);
    expect(flowing.map((reply) => reply.status)).to.deep.equal(Array(10).fill(200));
    expect(flowing[9]!.body.response).to.include('fast 9');

    for (const reply of await settled) {
      expect(reply.status).to.equal(502);
      expect(reply.body.detail).to.match(/did not answer in time|took longer than/);
    }
  });
});

describe("one user's slow model", function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let slow: ProviderStub;

  before(async () => {
    redis = await startTestRedis();
    // Another model of the same provider kind that holds every call until the test lets go.
    slow = await startProviderStub({ apiKey: STUB_KEY });
    slow.respondWith(...Array.from({ length: 30 }, () => ({ hold: true })));
    sut = await startChatHarness(redis, { env: { CHAT_WORKER_CONCURRENCY: '50', PROVIDER_MAX_RETRIES: '0', AGENT_TIMEOUT_S: '30' } });
  });
  after(async () => {
    // Closing the slow provider first ends its held calls, so the worker stops without waiting on them.
    await slow.close();
    await sut.close();
    await redis.destroy();
  });

  it("leaves another user's turn on the default model about as fast as unloaded, with 24 turns waiting on the slow one", async () => {
    const fastModel = await sut.model({ name: 'default-model' });
    const slowModel = await sut.model({ name: 'slow-openai', hosted_endpoint: `${slow.url}/v1`, is_default: false });
    const author = await sut.token('author');
    const other = await sut.token('other');
    const timed = async () => {
      const started = performance.now();
      const reply = await sut.call('POST', CHAT, { key: other, body: { message: 'fast', model: fastModel.name } });
      expect(reply.status).to.equal(200);
      return performance.now() - started;
    };
    await timed();
    const unloaded = await timed();

    const stuck = Array.from({ length: 24 }, (_, i) =>
      sut.call('POST', CHAT, {
        key: author,
        body: { message: `slow ${i}`, model: slowModel.name },
        headers: { prefer: 'respond-async' },
      }),
    );
    expect((await Promise.all(stuck)).map((reply) => reply.status)).to.deep.equal(Array(24).fill(202));
    // Every slot of the slow model is taken (the provider-kind limit of old would have held the other user too).
    await slow.received(8);
    const loaded = await timed();
    expect(loaded, `unloaded ${unloaded.toFixed(0)} ms, loaded ${loaded.toFixed(0)} ms`).to.be.below(Math.max(10 * unloaded, 1_500));
  });
});

describe("one user's turns at once (CHAT_USER_MAX_TURNS)", function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let held: ProviderStub;

  before(async () => {
    redis = await startTestRedis();
    held = await startProviderStub({ apiKey: STUB_KEY });
    held.respondWith({ hold: true }, { hold: true });
    sut = await startChatHarness(redis, { env: { CHAT_USER_MAX_TURNS: '2', PROVIDER_MAX_RETRIES: '0', AGENT_TIMEOUT_S: '30' } });
  });
  after(async () => {
    await held.close();
    await sut.close();
    await redis.destroy();
  });

  it("starts no provider call of a user's third turn until one of the first two ends, while another user's turn runs at once", async () => {
    const heldModel = await sut.model({ name: 'held-model', hosted_endpoint: `${held.url}/v1`, is_default: false });
    const fastModel = await sut.model({ name: 'fast-model' });
    const busy = await sut.token('busy');
    const other = await sut.token('other');
    const ask = (message: string) =>
      sut.call('POST', CHAT, { key: busy, body: { message, model: heldModel.name }, headers: { prefer: 'respond-async' } });
    expect((await Promise.all([ask('one'), ask('two')])).map((reply) => reply.status)).to.deep.equal([202, 202]);
    await held.received(2);
    const third = await ask('three');
    expect(third.status).to.equal(202);
    // Longer than a turn past the cap waits before it tries again.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(held.requests, 'the third turn has not called the provider').to.have.length(2);

    const fast = await sut.call('POST', CHAT, { key: other, body: { message: 'fast', model: fastModel.name } });
    expect(fast.status).to.equal(200);
    expect(fast.body.response).to.include('fast');
    expect(held.requests).to.have.length(2);
    expect((await sut.call('GET', String(third.body.status_url), { key: busy })).body.status).to.equal('queued');

    held.release();
    await held.received(3);
    expect(held.requests[2]!.body.messages.at(-1).content).to.equal('three');
  });
});
