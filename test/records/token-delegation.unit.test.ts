import { expect } from 'chai';
import { TokenService, type TokenRecord, type UserRecord } from '../../src/records/auth/token.service.js';
import { AuthenticationError } from '../../src/kernel/errors.js';
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
    sut = new TokenService(
      new MemoryRecordCollection<UserRecord>('name'),
      new MemoryRecordCollection<TokenRecord>('key_hash'),
      revocations,
      () => now,
    );
  });

  it("mints a key with exactly the parent's rights that authenticates as the same user, then is revoked", async () => {
    const { token: parent } = await sut.create({
      username: 'ann',
      superuser: false,
      permissions: ['ai_ops.chat', 'extras.view_secret'],
      writeEnabled: true,
      expires: null,
    });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t1 (delegated)', workId: 't1' });
    const principal = await sut.authenticate(delegated.key);
    expect(principal).to.include({ userId: parent.user_id, superuser: false, writeEnabled: true });
    expect([...principal.permissions]).to.deep.equal(['ai_ops.chat', 'extras.view_secret']);
    expect(delegated.token.expires).to.equal(new Date(now.getTime() + HOUR_MS).toISOString());
    await delegated.revoke();
    await delegated.revoke(); // a second revoke (turn retried after a crash) is harmless
    expect(published).to.deep.equal([delegated.token.key_hash]);
    await expectRejection(sut.authenticate(delegated.key));
  });

  it('ends a key that was never handed out without telling every process, as no cache can hold it', async () => {
    const { token: parent } = await sut.create({ username: 'eve', superuser: false, permissions: [], writeEnabled: true, expires: null });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t9 (delegated)', workId: 't9' });
    await delegated.revoke({ handedOut: false });
    expect(published).to.deep.equal([]);
    await expectRejection(sut.authenticate(delegated.key));
  });

  it("looks for no earlier attempt's key on a work's first attempt, and mints the same rights", async () => {
    const tokens = new MemoryRecordCollection<TokenRecord>('key_hash');
    const looked: string[] = [];
    const get = tokens.get.bind(tokens);
    tokens.get = async (id: string) => (looked.push(id), get(id));
    const service = new TokenService(
      new MemoryRecordCollection<UserRecord>('name'),
      tokens,
      { publish: async () => undefined, subscribe: () => () => undefined },
      () => now,
    );
    const { token: parent } = await service.create({
      username: 'dan',
      superuser: false,
      permissions: ['ai_ops.chat'],
      writeEnabled: false,
      expires: null,
    });
    const delegated = await service.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd', workId: 'first', firstAttempt: true });
    expect(looked, 'only the parent is read').to.deep.equal([parent.id]);
    expect(await service.authenticate(delegated.key)).to.include({ userId: parent.user_id, writeEnabled: false });
    looked.length = 0;
    const again = await service.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd', workId: 'first' });
    expect(looked, 'a later attempt looks for the key the first left').to.have.length(2);
    await expectRejection(service.authenticate(delegated.key));
    await again.revoke();
  });

  it("ends with its parent: revoking the token a turn acts for ends the turn's key at once, everywhere", async () => {
    const { token: parent } = await sut.create({ username: 'carol', superuser: true, permissions: [], writeEnabled: true, expires: null });
    const { token: other } = await sut.create({ username: 'carol', superuser: true, permissions: [], writeEnabled: true, expires: null });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t2 (delegated)', workId: 't2' });
    const unrelated = await sut.delegate(other.id, { ttlMs: HOUR_MS, description: 'chat turn t3 (delegated)', workId: 't3' });
    await sut.authenticate(delegated.key);
    await sut.revoke(parent.id);
    expect(published).to.have.members([parent.key_hash, delegated.token.key_hash]);
    await expectRejection(sut.authenticate(delegated.key));
    expect((await sut.authenticate(unrelated.key)).tokenId).to.equal(unrelated.token.id);
    await delegated.revoke(); // the turn's own revoke at its end finds it gone: harmless
  });

  it('refuses a delegated key whose parent was revoked while it was being made', async () => {
    const { token: parent } = await sut.create({
      username: 'dave',
      superuser: false,
      permissions: ['ai_ops.chat'],
      writeEnabled: true,
      expires: null,
    });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd', workId: 'w' });
    // As if the parent's revocation ran between the delegation's read of it and its insert.
    await sut.revoke(parent.id);
    const late = await sut.create({
      username: 'dave',
      superuser: false,
      permissions: ['ai_ops.chat'],
      writeEnabled: true,
      expires: null,
      parentId: parent.id,
    });
    await expectRejection(sut.authenticate(late.key));
    await expectRejection(sut.authenticate(delegated.key));
  });

  it('ends the key an earlier attempt at the same work left, and lets endDelegation end it from anywhere', async () => {
    const { token: parent } = await sut.create({ username: 'erin', superuser: false, permissions: [], writeEnabled: true, expires: null });
    const orphaned = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t4 (delegated)', workId: 't4' });
    const other = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t5 (delegated)', workId: 't5' });
    const retried = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'chat turn t4 (delegated)', workId: 't4' });
    expect(published).to.deep.equal([orphaned.token.key_hash]);
    await expectRejection(sut.authenticate(orphaned.key));
    // The earlier attempt's own revoke, late, leaves the key that replaced it alone.
    await orphaned.revoke();
    expect((await sut.authenticate(retried.key)).tokenId).to.equal(retried.token.id);

    expect(await sut.endDelegation('t4')).to.equal(true);
    expect(await sut.endDelegation('t4')).to.equal(false);
    await expectRejection(sut.authenticate(retried.key));
    expect((await sut.authenticate(other.key)).tokenId).to.equal(other.token.id);
    expect(other.token.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  describe('from an OAuth access token (a host signed in by OAuth calling the tool server)', () => {
    const RESOURCE = 'http://127.0.0.1:8/mcp';
    const signedIn = async () => {
      const { token: person } = await sut.create({
        username: 'fay',
        superuser: false,
        permissions: ['ai_ops.use_toolserver', 'extras.view_status'],
        writeEnabled: true,
        expires: null,
      });
      const access = await sut.delegate(person.id, { ttlMs: HOUR_MS, description: 'OAuth', workId: 'access', audience: RESOURCE });
      const call = await sut.delegate(access.token.id, { ttlMs: 2 * HOUR_MS, description: 'call', workId: 'call' });
      return { person, access, call };
    };

    it("acts with the person's rights on the whole API: no audience, no longer than the access token", async () => {
      const { person, access, call } = await signedIn();
      const principal = await sut.authenticate(call.key);
      expect(principal).to.include({ userId: person.user_id, writeEnabled: true, delegated: true });
      expect(principal.audience).to.equal(undefined);
      expect([...principal.permissions]).to.deep.equal(['ai_ops.use_toolserver', 'extras.view_status']);
      expect(call.token.parent_id).to.equal(access.token.id);
      expect(call.token.expires).to.equal(access.token.expires);
    });

    it("ends when the access token or the person's token is revoked, every process told", async () => {
      const first = await signedIn();
      await sut.authenticate(first.call.key);
      await sut.revoke(first.access.token.id);
      expect(published).to.have.members([first.access.token.key_hash, first.call.token.key_hash]);
      await expectRejection(sut.authenticate(first.call.key));

      published.length = 0;
      const second = await signedIn();
      await sut.revoke(second.person.id);
      expect(published).to.have.members([second.person.key_hash, second.access.token.key_hash, second.call.token.key_hash]);
      await expectRejection(sut.authenticate(second.call.key));
    });

    it("is refused once the person's token is gone, and a token delegated for other work is not delegated again", async () => {
      const { person, access } = await signedIn();
      const turn = await sut.delegate(person.id, { ttlMs: HOUR_MS, description: 'chat turn', workId: 'turn' });
      await expectRejection(sut.delegate(turn.token.id, { ttlMs: HOUR_MS, description: 'd', workId: 'again' }));
      // As if the person's token were removed and its access token not yet.
      const { token: left } = await sut.create({
        username: 'fay',
        superuser: false,
        permissions: [],
        writeEnabled: true,
        expires: null,
        parentId: 'gone',
        audience: RESOURCE,
      });
      await expectRejection(sut.delegate(left.id, { ttlMs: HOUR_MS, description: 'd', workId: 'orphan' }));
      expect((await sut.delegate(access.token.id, { ttlMs: HOUR_MS, description: 'd', workId: 'ok' })).token.parent_id).to.equal(
        access.token.id,
      );
    });
  });

  it('never outlives its parent, and is refused for a parent that is gone or expired', async () => {
    const parentExpiry = new Date(now.getTime() + 60_000);
    const { token: parent } = await sut.create({
      username: 'bob',
      superuser: false,
      permissions: ['ai_ops.chat'],
      writeEnabled: false,
      expires: parentExpiry,
    });
    const delegated = await sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd', workId: 'w' });
    expect(delegated.token.expires).to.equal(parentExpiry.toISOString());
    expect(delegated.token.write_enabled).to.equal(false);
    now = new Date(now.getTime() + 120_000);
    await expectRejection(sut.delegate(parent.id, { ttlMs: HOUR_MS, description: 'd', workId: 'w' }));
    await expectRejection(sut.delegate('no-such-token', { ttlMs: HOUR_MS, description: 'd', workId: 'w' }));
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
