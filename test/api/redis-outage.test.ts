import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';
import { until } from '../support/until.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';

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
    await sut.call('POST', '/api/extras/secrets/', {
      body: { name: 'durable-key', provider: 'environment-variable', parameters: { variable: 'K' } },
    });
    expect(await sut.redis.client.config('GET', 'appendonly')).to.deep.equal(['appendonly', 'yes']);
    await sut.redis.stop();
    await sut.redis.restart();
    await until(async () => (await sut.call('GET', `${MODELS}${created.body.id}/`)).status === 200, 10_000, 'the API to reach Redis again');
    const after = await sut.call('GET', `${MODELS}${created.body.id}/`);
    expect(after.body).to.include({ name: 'durable', is_default: true, temperature: 0.7 });
    expect((await sut.call('GET', '/api/extras/secrets/?name=durable-key')).body.count).to.equal(1);
    // Tokens survive too: the admin key still works (it was used above).
  });

  it('answers 503 while Redis is down and recovers without a restart', async () => {
    await sut.redis.stop();
    await until(async () => (await sut.call('GET', '/status')).status === 503, 10_000, 'the API to notice Redis is down');
    const status = await sut.call('GET', '/status');
    expect(status.status).to.equal(503);
    expect(status.body).to.include({ status: 'unavailable', redis: 'unreachable' });

    const read = await sut.call('GET', MODELS);
    expect(read.status).to.equal(503);
    expect(read.body.detail).to.match(/Redis/);
    expect(read.headers.get('retry-after')).to.equal('5');
    const write = await sut.call('POST', MODELS, { body: { name: 'while-down' } });
    expect(write.status).to.equal(503);

    await sut.redis.restart();
    await until(async () => (await sut.call('GET', '/status')).status === 200, 10_000, 'the API to reach Redis again');
    expect((await sut.call('POST', MODELS, { body: { name: 'after-outage' } })).status).to.equal(201);
  });
});
