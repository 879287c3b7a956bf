import { mkdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { FileLocks } from '../../src/knowledge/adapters/file-locks.adapter.js';
import { UnavailableError } from '../../src/kernel/errors.js';
import { tempDirPerTest } from '../support/temp-dir.js';

describe(FileLocks.name, () => {
  const tempDir = tempDirPerTest('locks');
  let sut: FileLocks;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('acquired'),
      (error: unknown) => error as Error,
    );
  /** A lock directory as a process that was killed while holding `name` leaves it, last refreshed `ageMs` ago. */
  const leftBehind = (name: string, ageMs: number) => {
    const lock = path.join(tempDir(), `${encodeURIComponent(name)}.lock`);
    mkdirSync(lock, { recursive: true });
    const when = new Date(Date.now() - ageMs);
    utimesSync(lock, when, when);
  };

  beforeEach(() => {
    sut = new FileLocks(tempDir(), 10_000);
  });

  it('lets one holder in at a time; the next gets in once it is released', async () => {
    const events: string[] = [];
    const release = await sut.acquire('acme~tools', { waitMs: 10_000 });
    const second = sut.acquire('acme~tools', { waitMs: 10_000 }).then((next) => (events.push('second in'), next));
    events.push('first out');
    await release();
    await (
      await second
    )();
    expect(events).to.deep.equal(['first out', 'second in']);
  });

  it('keeps names apart', async () => {
    const a = await sut.acquire('acme~tools', { waitMs: 0 });
    const b = await sut.acquire('repositories', { waitMs: 0 });
    await Promise.all([a(), b()]);
  });

  it('gives up after waitMs with UnavailableError naming the lock', async () => {
    const release = await sut.acquire('acme~tools', { waitMs: 0 });
    const error = await failure(sut.acquire('acme~tools', { waitMs: 0 }));
    expect(error).to.be.instanceOf(UnavailableError);
    expect(error.message).to.equal('acme~tools is locked by another run');
    expect((error as UnavailableError).remedy).to.match(/wait for it to finish/);
    await release();
  });

  it('stops waiting when its signal is aborted', async () => {
    const release = await sut.acquire('acme~tools', { waitMs: 0 });
    const controller = new AbortController();
    const waiting = failure(sut.acquire('acme~tools', { waitMs: 60_000, signal: controller.signal }));
    controller.abort(new Error('job cancelled'));
    expect((await waiting).message).to.equal('job cancelled');
    await release();
  });

  it('takes over a lock its killed holder stopped refreshing longer ago than the stale time', async () => {
    leftBehind('acme~tools', 60_000);
    await (
      await sut.acquire('acme~tools', { waitMs: 0 })
    )();
  });

  it('does not take over a lock refreshed within the stale time (its holder may be alive elsewhere)', async () => {
    leftBehind('acme~tools', 1_000);
    expect(await failure(sut.acquire('acme~tools', { waitMs: 0 }))).to.be.instanceOf(UnavailableError);
  });
});
