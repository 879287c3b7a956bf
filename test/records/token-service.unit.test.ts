import { expect } from 'chai';
import { AuthenticationError, NotFoundError, ValidationError } from '../../src/kernel/errors.js';
import type { RevocationFeed, RevocationListener } from '../../src/records/auth/revocation-feed.port.js';
import { hashKey, TokenService, type NewToken, type TokenRecord, type UserRecord } from '../../src/records/auth/token.service.js';
import { MemoryRecordCollection } from '../support/fakes/memory-record-collection.js';

/**
 * Revocations heard by the one subscriber, as over pub/sub (a process hears its own); `listener`
 * lets a test cut or restore the feed, `delayed` holds messages back as a busy connection does.
 */
class FakeRevocationFeed implements RevocationFeed {
  readonly published: string[] = [];
  listener?: RevocationListener;
  delayed = false;

  async publish(keyHash: string): Promise<void> {
    this.published.push(keyHash);
    if (!this.delayed) this.listener?.revoked(keyHash);
  }

  subscribe(listener: RevocationListener): () => void {
    this.listener = listener;
    return () => {
      this.listener = undefined;
    };
  }
}

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const request = (fields: Partial<NewToken> = {}): NewToken => ({
  username: 'alice',
  superuser: false,
  permissions: [],
  writeEnabled: true,
  expires: null,
  ...fields,
});

describe(TokenService.name, () => {
  let users: MemoryRecordCollection<UserRecord>;
  let tokens: MemoryRecordCollection<TokenRecord>;
  let feed: FakeRevocationFeed;
  let clock: Date;
  /** Token lookups by key hash that reached the store. */
  let reads: number;
  let sut: TokenService;

  const failure = async (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('should have failed'),
      (error: unknown) => error as Error,
    );

  beforeEach(() => {
    users = new MemoryRecordCollection('name');
    tokens = new MemoryRecordCollection('key_hash');
    feed = new FakeRevocationFeed();
    clock = T0;
    reads = 0;
    const getByKey = tokens.getByKey.bind(tokens);
    tokens.getByKey = (key) => {
      reads++;
      return getByKey(key);
    };
    sut = new TokenService(users, tokens, feed, () => clock);
  });

  describe('create', () => {
    it('keeps only the hash and the last four characters of the key it answers once', async () => {
      const { token, key } = await sut.create(
        request({ permissions: ['ai_ops.view_llmmodel', 'ai_ops.chat', 'ai_ops.chat'], description: 'ci' }),
      );
      expect(key).to.match(/^[0-9a-f]{40}$/);
      expect(await tokens.get(token.id)).to.deep.equal({
        id: token.id,
        created: T0.toISOString(),
        last_updated: T0.toISOString(),
        key_hash: hashKey(key),
        key_hint: key.slice(-4),
        user_id: token.user_id,
        username: 'alice',
        superuser: false,
        permissions: ['ai_ops.chat', 'ai_ops.view_llmmodel'],
        write_enabled: true,
        expires: null,
        description: 'ci',
      });
      expect(JSON.stringify(await tokens.all())).to.not.contain(key);
    });

    it('creates the user once and gives every later token the same user', async () => {
      const first = await sut.create(request());
      clock = at(60_000);
      const second = await sut.create(request());
      expect(second.token.user_id).to.equal(first.token.user_id);
      expect((await users.all()).records).to.have.length(1);
      expect(await users.getByKey('alice')).to.deep.include({
        id: first.token.user_id,
        created: T0.toISOString(),
        last_updated: at(60_000).toISOString(),
      });
    });

    it('refuses a malformed user name and an expiry in the past', async () => {
      expect(((await failure(sut.create(request({ username: 'alice smith' })))) as ValidationError).fields).to.have.property('user');
      expect(((await failure(sut.create(request({ expires: T0 })))) as ValidationError).fields).to.deep.equal({
        expires: ['The expiry date is in the past.'],
      });
      expect((await tokens.all()).records).to.deep.equal([]);
    });
  });

  it('lists tokens oldest first (the store keeps them by key hash) and finds one by id', async () => {
    const created: string[] = [];
    for (const second of [5, 3, 1, 4, 2, 6]) {
      clock = at(second * 1_000);
      created[second] = (await sut.create(request({ username: `user${second}` }))).token.id;
    }
    expect((await sut.list()).map((token) => token.id)).to.deep.equal(created.filter(Boolean));
    expect((await sut.get(created[3]!)).username).to.equal('user3');
    expect(await failure(sut.get('no-such-token'))).to.be.instanceOf(NotFoundError);
  });

  describe('authenticate', () => {
    it('answers who is calling for a valid key', async () => {
      const { token, key } = await sut.create(request({ superuser: true, permissions: ['ai_ops.chat'], writeEnabled: false }));
      expect(await sut.authenticate(key)).to.deep.equal({
        userId: token.user_id,
        username: 'alice',
        tokenId: token.id,
        superuser: true,
        permissions: new Set(['ai_ops.chat']),
        writeEnabled: false,
      });
    });

    it('refuses an unknown key and an expired token', async () => {
      expect((await failure(sut.authenticate('0'.repeat(40)))).message).to.equal('Invalid token.');
      const { key } = await sut.create(request({ expires: at(1_000) }));
      await sut.authenticate(key);
      clock = at(1_000);
      const error = await failure(sut.authenticate(key));
      expect(error).to.be.instanceOf(AuthenticationError);
      expect(error.message).to.equal('Token expired.');
    });

    it('reads the store for every request while no principal cache runs', async () => {
      const { key } = await sut.create(request());
      reads = 0;
      await sut.authenticate(key);
      await sut.authenticate(key);
      expect(reads).to.equal(2);
    });
  });

  describe('with the principal cache', () => {
    it('serves a key from memory while the revocation feed is live, until the TTL', async () => {
      const { key } = await sut.create(request());
      reads = 0;
      sut.cachePrincipals(30_000);
      await sut.authenticate(key);
      expect(reads, 'the feed is not live yet').to.equal(1);
      feed.listener!.live();
      await sut.authenticate(key);
      clock = at(29_999);
      await sut.authenticate(key);
      expect(reads).to.equal(2);
      clock = at(30_000);
      await sut.authenticate(key);
      expect(reads).to.equal(3);
    });

    it('never trusts a cached token past its own expiry', async () => {
      const { key } = await sut.create(request({ expires: at(5_000) }));
      sut.cachePrincipals(30_000);
      feed.listener!.live();
      await sut.authenticate(key);
      clock = at(5_000);
      expect((await failure(sut.authenticate(key))).message).to.equal('Token expired.');
    });

    it('drops a revoked token at once, in every process that hears it', async () => {
      const { token, key } = await sut.create(request());
      sut.cachePrincipals(30_000);
      feed.listener!.live();
      await sut.authenticate(key);
      await sut.revoke(token.id);
      expect(feed.published).to.deep.equal([hashKey(key)]);
      expect((await failure(sut.authenticate(key))).message).to.equal('Invalid token.');
    });

    it('refuses a token it revoked itself at once, before its own revocation comes back over the feed', async () => {
      const { token, key } = await sut.create(request());
      sut.cachePrincipals(30_000);
      feed.listener!.live();
      await sut.authenticate(key);
      feed.delayed = true;
      await sut.revoke(token.id);
      expect((await failure(sut.authenticate(key))).message).to.equal('Invalid token.');
    });

    it('stops using the cache while the feed is down, and starts again empty when it is back', async () => {
      const { token, key } = await sut.create(request());
      sut.cachePrincipals(30_000);
      feed.listener!.live();
      await sut.authenticate(key);
      feed.listener!.lost();
      // A revocation made meanwhile is not heard: only the store can tell.
      await tokens.remove(token.id);
      expect((await failure(sut.authenticate(key))).message).to.equal('Invalid token.');
      await tokens.insert(token);
      await sut.authenticate(key);
      feed.listener!.live();
      const before = reads;
      await sut.authenticate(key);
      expect(reads - before, 'what was cached before the outage is gone').to.equal(1);
    });

    it('stops listening when stopped', async () => {
      const stop = sut.cachePrincipals(30_000);
      expect(feed.listener).to.not.equal(undefined);
      stop();
      expect(feed.listener).to.equal(undefined);
    });
  });

  it('revokes a token once: the second time it is not found and nothing is published', async () => {
    const { token } = await sut.create(request());
    await sut.revoke(token.id);
    expect(await tokens.get(token.id)).to.equal(null);
    expect(await failure(sut.revoke(token.id))).to.be.instanceOf(NotFoundError);
    expect(feed.published).to.have.length(1);
  });
});
