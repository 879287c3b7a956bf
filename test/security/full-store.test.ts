import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const CHAT = '/plugins/ai-ops/api/chat/';

// Finding 6 of the least-privilege audit: with Redis full, writes answered 500 "Internal server error" and /status said nothing.
describe('security: a full Redis is a 503 that says so', () => {
  let sut: TestApi;
  let chatter: string;
  before(async () => {
    sut = await startTestApi(undefined, { CHAT_RATE_PER_MIN: '0' });
    expect((await sut.call('POST', MODELS, { body: { name: 'local', is_default: true } })).status).to.equal(201);
    chatter = await sut.token({ permissions: ['ai_ops.chat'] });
    // noeviction (the shipped redis.conf) and a limit below what is used: every write is refused.
    await sut.redis.client.config('SET', 'maxmemory', '1');
  });
  after(async () => {
    await sut.redis.client.config('SET', 'maxmemory', '0');
    await sut.close();
  });

  it('answers record and chat writes with 503 naming the cause; reads still work', async () => {
    const write = await sut.call('POST', MODELS, { body: { name: 'refused' } });
    expect(write.status).to.equal(503);
    expect(write.body.detail).to.equal(
      'Service unavailable: the store (Redis) is full: it refuses writes once maxmemory is reached. Free memory or raise maxmemory (README, "Sizing Redis").',
    );
    expect(write.headers.get('retry-after')).to.equal('5');
    const turn = await sut.call('POST', CHAT, { key: chatter, body: { message: 'hello' }, headers: { prefer: 'respond-async' } });
    expect(turn.status).to.equal(503);
    expect(turn.body.detail).to.include('is full');
    expect((await sut.call('GET', MODELS)).status).to.equal(200);
  });

  it('reports it on /status (still 200: reads are served) and in the metrics', async () => {
    const status = await sut.call('GET', '/status', { key: null });
    expect(status.status).to.equal(200);
    expect(status.body).to.include({ status: 'ok', redis: 'full' });
    expect(status.body.detail).to.match(/^Redis is full \(\d+ bytes used, maxmemory 1\): writes are refused/);
    const metrics = await fetch(`${sut.baseUrl}/metrics`);
    const text = await metrics.text();
    expect(text).to.match(/aiops_redis_memory_bytes\{kind="max"\} 1\n/);
    expect(text).to.match(/aiops_redis_memory_bytes\{kind="used"\} [1-9]\d*\n/);
  });

  it('recovers by itself once memory is available', async () => {
    await sut.redis.client.config('SET', 'maxmemory', '0');
    expect((await sut.call('POST', MODELS, { body: { name: 'after' } })).status).to.equal(201);
    expect((await sut.call('GET', '/status', { key: null })).body.redis).to.equal('ok');
    await sut.redis.client.config('SET', 'maxmemory', '1');
  });
});
