import { expect } from 'chai';
import { PrincipalCache } from '../../src/records/auth/principal-cache.js';
import type { Principal } from '../../src/records/auth/permissions.js';

const principal = (username: string): Principal => ({
  userId: username,
  username,
  tokenId: username,
  superuser: false,
  permissions: new Set(),
  writeEnabled: true,
});

describe(PrincipalCache.name, () => {
  const T0 = Date.parse('2026-03-01T10:00:00.000Z');
  let clock: number;
  beforeEach(() => {
    clock = T0;
  });

  it('forgets an entry when its TTL is over, by the injected clock', () => {
    const sut = new PrincipalCache(30_000, () => clock);
    sut.set('a', principal('alice'), null);
    clock = T0 + 29_999;
    expect(sut.get('a')?.username).to.equal('alice');
    clock = T0 + 30_000;
    expect(sut.get('a')).to.equal(undefined);
  });

  it('never keeps an entry past its token expiry, and does not keep one about to expire', () => {
    const sut = new PrincipalCache(30_000, () => clock);
    sut.set('a', principal('alice'), T0 + 5_000);
    sut.set('b', principal('bob'), T0 + 1);
    expect(sut.get('b')).to.equal(undefined);
    clock = T0 + 4_999;
    expect(sut.get('a')?.username).to.equal('alice');
    clock = T0 + 5_000;
    expect(sut.get('a')).to.equal(undefined);
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const sut = new PrincipalCache(30_000, () => clock, 2);
    sut.set('a', principal('alice'), null);
    sut.set('b', principal('bob'), null);
    sut.get('a');
    sut.set('c', principal('carol'), null);
    expect([sut.get('a')?.username, sut.get('b'), sut.get('c')?.username]).to.deep.equal(['alice', undefined, 'carol']);
  });

  it('drops one entry or all of them', () => {
    const sut = new PrincipalCache(30_000, () => clock);
    sut.set('a', principal('alice'), null);
    sut.set('b', principal('bob'), null);
    sut.drop('a');
    expect(sut.get('a')).to.equal(undefined);
    sut.clear();
    expect(sut.get('b')).to.equal(undefined);
  });
});
