import { expect } from 'chai';
import { openRedisConnection } from '../../src/kernel/redis/redis-client.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import type { ChatHarness } from '../chat/chat-harness.js';
import { describeFigures, failoverUnderLoad, startSentinelChat } from '../support/failover-load.js';
import { SENTINEL_NAME, type TestSentinel } from '../support/redis-topologies.js';
import { until } from '../support/until.js';
import { indexAndCheckHealth } from '../support/topology-jobs.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const MODELS = '/api/plugins/ai-ops/llm-models/';

// A failover with one replica pauses writes until the old primary is back as a replica (the
// Sentinels' next look at it, up to 10 s): the killed-primary case has a file of its own to keep each short.
describe('on Redis Sentinel (a primary, a replica, three Sentinels)', function () {
  this.timeout(60_000);
  let running: Awaited<ReturnType<typeof startSentinelChat>> | undefined;
  let sentinel: TestSentinel;
  let sut: ChatHarness;
  let alice: string;

  before(async () => {
    running = await startSentinelChat();
    ({ sentinel, sut, alice } = running);
  });

  after(async () => {
    await running?.close();
  });

  it('serves tokens, records, a chat turn and /status through the primary the Sentinels name', async () => {
    const admin = (
      await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null })
    ).key;
    const listed = await sut.call('GET', MODELS, { key: admin });
    expect(listed.status).to.equal(200);
    expect(listed.body.count).to.equal(1);
    const turn = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
    expect(turn.status).to.equal(200);
    const status = await sut.call('GET', '/status', { key: '' });
    expect(status.status).to.equal(200);
    expect(status.body).to.include({ redis: 'ok' });
  });

  it('indexes a repository the API was asked to add, on a worker elsewhere, and runs a health check asked for through the API', async () => {
    await indexAndCheckHealth(sut, sentinel);
  });

  it('loses no answered turn through SENTINEL FAILOVER under load, and recovers by itself', async () => {
    const figures = await failoverUnderLoad(sut, alice, () => sentinel.failover());
    console.log(`      ${describeFigures('SENTINEL FAILOVER', figures)}`);
    expect(figures.lost).to.equal(0);
    await until(async () => (await sut.call('GET', '/status', { key: '' })).status === 200, 20_000, '/status to answer 200 again');
  });

  it('says nothing outside its logs when a Sentinel it watches for failovers is away', async () => {
    const live = sentinel.env.REDIS_SENTINELS!.split(',').map((address) => ({ host: '127.0.0.1', port: Number(address.split(':')[1]) }));
    const away = { host: '127.0.0.1', port: await freePort() };
    const printed: string[] = [];
    const print = console.error;
    console.error = (...parts: unknown[]) => printed.push(parts.map(String).join(' '));
    const client = openRedisConnection(
      { kind: 'sentinel', sentinels: [...live, away], name: SENTINEL_NAME },
      { maxRetriesPerRequest: null },
    );
    client.on('error', () => {});
    try {
      // Once connected to the primary, the failover detector subscribes on every Sentinel, the one away
      // included; on loopback its refusal comes within milliseconds.
      expect(await client.ping()).to.equal('PONG');
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      client.disconnect();
      console.error = print;
    }
    expect(printed.filter((line) => line.includes('Unhandled error'))).to.deep.equal([]);
  });
});
