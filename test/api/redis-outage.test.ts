import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Redis outages', () => {
  let sut: TestApi;

  beforeEach(async () => {
    sut = await startTestApi();
  });
  afterEach(async () => {
    await sut.close();
  });

  it('keeps every record across a Redis restart (append-only file)', async () => {
    const created = await sut.call('POST', MODELS, { body: { name: 'durable', is_default: true, temperature: 0.7 } });
    await sut.call('POST', '/api/extras/secrets/', { body: { name: 'durable-key', provider: 'environment-variable', parameters: { variable: 'K' } } });
    expect(await sut.redis.client.config('GET', 'appendonly')).to.deep.equal(['appendonly', 'yes']);
    await sut.redis.stop();
    await sut.redis.restart();
    const after = await eventually(() => sut.call('GET', `${MODELS}${created.body.id}/`), (r) => r.status === 200);
    expect(after.status).to.equal(200);
    expect(after.body).to.include({ name: 'durable', is_default: true, temperature: 0.7 });
    expect((await sut.call('GET', '/api/extras/secrets/?name=durable-key')).body.count).to.equal(1);
    // Tokens survive too: the admin key still works (it was used above).
  });

  it('answers 503 while Redis is down and recovers without a restart', async () => {
    await sut.redis.stop();
    const status = await eventually(() => sut.call('GET', '/status'), (r) => r.status === 503);
    expect(status.status).to.equal(503);
    expect(status.body).to.include({ status: 'unavailable', redis: 'unreachable' });

    const read = await sut.call('GET', MODELS);
    expect(read.status).to.equal(503);
    expect(read.body.detail).to.match(/Redis/);
    expect(read.headers.get('retry-after')).to.equal('5');
    const write = await sut.call('POST', MODELS, { body: { name: 'while-down' } });
    expect(write.status).to.equal(503);

    await sut.redis.restart();
    const back = await eventually(() => sut.call('GET', '/status'), (r) => r.status === 200);
    expect(back.status).to.equal(200);
    expect((await sut.call('POST', MODELS, { body: { name: 'after-outage' } })).status).to.equal(201);
  });
});
