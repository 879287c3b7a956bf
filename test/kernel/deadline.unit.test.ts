import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { deadline } from '../../src/kernel/deadline.js';

describe('deadline', () => {
  const late = () => new Error('too late');

  it('aborts with a source’s reason when the source aborts, and is not expired', () => {
    const source = new AbortController();
    const limit = deadline([undefined, source.signal, null], 10_000, late);
    source.abort(new Error('stopped'));
    expect(limit.signal.aborted).to.equal(true);
    expect((limit.signal.reason as Error).message).to.equal('stopped');
    expect(limit.expired).to.equal(false);
    limit.clear();
  });

  it('is aborted at once by a source that already is', () => {
    const limit = deadline([AbortSignal.abort(new Error('before'))], 10_000, late);
    expect((limit.signal.reason as Error).message).to.equal('before');
  });

  it('aborts with the time limit’s reason once the time runs out, and says it expired', async () => {
    const limit = deadline([new AbortController().signal], 20, late);
    await delay(60);
    expect(limit.expired).to.equal(true);
    expect((limit.signal.reason as Error).message).to.equal('too late');
  });

  it('stops the clock when cleared, yet still follows its sources', async () => {
    const source = new AbortController();
    const limit = deadline([source.signal], 20, late);
    limit.clear();
    await delay(60);
    expect(limit.signal.aborted).to.equal(false);
    source.abort(new Error('stopped reading'));
    expect((limit.signal.reason as Error).message).to.equal('stopped reading');
  });
});
