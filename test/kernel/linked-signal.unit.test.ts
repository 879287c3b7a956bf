import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { linkedSignal } from '../../src/kernel/linked-signal.js';
import { collectGarbage } from '../support/garbage-collection.js';

describe('linkedSignal', () => {
  it('aborts with the reason of the first source to abort, and lets go of the others', () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkedSignal([first.signal, undefined, second.signal]);
    const reason = new Error('stopped');
    second.abort(reason);
    expect(linked.signal.aborted).to.equal(true);
    expect(linked.signal.reason).to.equal(reason);
    expect(linked.timedOut).to.equal(false);
    expect(getEventListeners(first.signal, 'abort')).to.have.length(0);
  });

  it('is aborted at once when a source already is', () => {
    const reason = new Error('before');
    const linked = linkedSignal([new AbortController().signal, AbortSignal.abort(reason)], 1_000);
    expect(linked.signal.aborted).to.equal(true);
    expect(linked.signal.reason).to.equal(reason);
  });

  it('aborts with a TimeoutError at its time limit', async () => {
    const source = new AbortController();
    const linked = linkedSignal([source.signal], 20);
    await sleep(60);
    expect(linked.signal.aborted).to.equal(true);
    expect((linked.signal.reason as DOMException).name).to.equal('TimeoutError');
    expect(linked.timedOut).to.equal(true);
    expect(source.signal.aborted, 'the source is only listened to').to.equal(false);
    expect(getEventListeners(source.signal, 'abort')).to.have.length(0);
  });

  it('keeps its time limit through a garbage collection (AbortSignal.any over AbortSignal.timeout loses it on Node 20)', async () => {
    const linked = linkedSignal([new AbortController().signal], 100);
    // A tick first: what the creating frame held is only collectable after it.
    await sleep(10);
    collectGarbage();
    await sleep(200);
    expect(linked.signal.aborted).to.equal(true);
    expect(linked.timedOut).to.equal(true);
  });

  it('once disposed, neither its time limit nor its sources abort it', async () => {
    const source = new AbortController();
    const linked = linkedSignal([source.signal], 20);
    linked.dispose();
    expect(getEventListeners(source.signal, 'abort')).to.have.length(0);
    source.abort();
    await sleep(60);
    expect(linked.signal.aborted).to.equal(false);
  });
});
