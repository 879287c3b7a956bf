import { expect } from 'chai';
import { TokenService, type TokenRecord, type UserRecord } from '../../shared/auth/token.service.js';
import { AuthenticationError } from '../../shared/errors.js';
import { MemoryRecordCollection } from '../support/fakes/memory-record-collection.js';

const HOUR_MS = 3_600_000;

describe(`${TokenService.name} delegation`, () => {
  let now: Date;
  let published: string[];
  let sut: TokenService;

  beforeEach(() => {
    now = new Date('2026-11-23T12:00:00Z');
    published = [];
    const revocations = { publish: async (keyHash: string) => void published.push(keyHash), subscribe: () => () => undefined };
    sut = new TokenService(new MemoryRecordCollection<UserRecord>('name'), new MemoryRecordCollection<TokenRecord>('key_hash'), revocations, () => now);
  });

  it("mints a key with exactly the parent's rights that authenticates as the same user, then is revoked", async () => {
    const { token: parent } = await sut.create({ username: 'ann', superuser: false, permissions: ['ai_ops.chat', 'extras.view_secret'], writeEnabled: true, expires: null });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t1 (delegated)' });
    const principal = await sut.authenticate(delegated.key);
    expect(principal).to.include({ userId: parent.user_id, superuser: false, writeEnabled: true });
    expect([...principal.permissions]).to.deep.equal(['ai_ops.chat', 'extras.view_secret']);
    expect(delegated.token.expires).to.equal(new Date(now.getTime() + HOUR_MS).toISOString());
    await delegated.revoke();
    await delegated.revoke(); // a second revoke (turn retried after a crash) is harmless
    expect(published).to.deep.equal([delegated.token.key_hash]);
    await expectRejection(sut.authenticate(delegated.key));
  });

  it('never outlives its parent, and is refused for a parent that is gone or expired', async () => {
    const parentExpiry = new Date(now.getTime() + 60_000);
    const { token: parent } = await sut.create({ username: 'bob', superuser: false, permissions: ['ai_ops.chat'], writeEnabled: false, expires: parentExpiry });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd' });
    expect(delegated.token.expires).to.equal(parentExpiry.toISOString());
    expect(delegated.token.write_enabled).to.equal(false);
    now = new Date(now.getTime() + 120_000);
    await expectRejection(sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd' }));
    await expectRejection(sut.delegate('no-such-token', { ttlMs: HOUR_MS, description: 'd' }));
  });
});

async function expectRejection(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(AuthenticationError);
    return;
  }
  expect.fail('expected an AuthenticationError');
}
