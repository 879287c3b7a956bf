import { expect } from 'chai';
import type { ChatHarness } from '../chat/chat-harness.js';
import { describeFigures, failoverUnderLoad, startSentinelChat } from '../support/failover-load.js';
import type { TestSentinel } from '../support/redis-topologies.js';
import { until } from '../support/until.js';

describe('on Redis Sentinel, when the primary is killed', function () {
  this.timeout(120_000);
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

  it('loses no answered turn under load, and recovers by itself once the Sentinels have promoted the replica', async () => {
    const figures = await failoverUnderLoad(sut, alice, () => sentinel.crashPrimary());
    console.log(`      ${describeFigures('killed primary', figures)}`);
    expect(figures.lost).to.equal(0);
    await until(async () => (await sut.call('GET', '/status', { key: '' })).status === 200, 20_000, '/status to answer 200 again');
  });
});
