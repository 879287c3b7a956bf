import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { type TokenRecord, TokenService, type UserRecord } from '../auth/token.service.js';
import type { BaseRecord } from '../record-collection.port.js';
import { KIND_NAMES, perKind, RECORD_KINDS, type KindName } from '../record-kinds.js';
import { RecordService, type RecordKind } from '../record-service.js';
import { KIND_RULES, type KindContext, type KindServices, type Records, type StoredRecord } from '../records.js';
import type { SecretUsers } from '../secret.js';
import { NO_EXCEPTIONS, type WriteRules } from '../record-write-rules.js';
import { RecordChanges } from './record-changes.js';
import { RedisRecordCollection } from './redis-record-collection.adapter.js';
import { NO_REPLICA_WAIT, type ReplicaWait } from '../../kernel/redis/redis-replication.js';
import { RedisRevocationFeed } from './redis-revocation-feed.adapter.js';

/**
 * Every record service over the collections of one RedisClient connection: one per row of
 * RECORD_KINDS, and the tokens.
 * `rules`: what writers short of superuser may still do (the operator's allow-lists; none by
 * default). `replicaWait`: replicas every write must reach before it is answered. `otherSecretUsers`:
 * what else names secrets by their name, beside models and servers (knowledge-base repositories).
 */
export function createRecords(
  redis: RedisClient,
  prefix: string,
  rules: WriteRules = NO_EXCEPTIONS,
  replicaWait: ReplicaWait = NO_REPLICA_WAIT,
  otherSecretUsers: SecretUsers = async () => [],
): Records {
  const changes = new RecordChanges();
  /**
   * How a collection is read and written: a kind's `use` (see RecordKindRow), or `written-often`,
   * writes that no process hears of, the listing checked against the version at each read (tokens:
   * a delegated key each chat turn).
   */
  const collection = <R extends BaseRecord>(name: string, keyField: keyof R & string, use: 'read-mostly' | 'listed' | 'written-often') =>
    new RedisRecordCollection<R>(redis, {
      prefix,
      name,
      keyField,
      changes,
      announced: use !== 'written-often',
      pointReadsFromListing: use === 'read-mostly',
      replicaWait,
    });
  const collections = perKind<Records['collections']>(
    (name) => collection(RECORD_KINDS[name].collection, 'name', RECORD_KINDS[name].use) as Records['collections'][KindName],
  );
  const context: KindContext = {
    rules,
    statuses: collections.statuses,
    // Sequential, in the table's order: the records of each kind that name the secret as theirs.
    secretUsers: async (name: string) => {
      const users: string[] = [];
      for (const kindName of KIND_NAMES) {
        const { label, secretsNamed } = kinds[kindName];
        if (!secretsNamed) continue;
        const { records } = await collections[kindName].all();
        users.push(...records.filter((record) => secretsNamed(record).includes(name)).map((record) => `${label} ${record.name}`));
      }
      return [...users, ...(await otherSecretUsers(name))];
    },
  };
  // Each kind's rules, paired with its collection by name: TypeScript does not follow the pairing across the kinds' union.
  const kinds = perKind<Record<KindName, RecordKind<StoredRecord, { name: string }, unknown>>>(
    (name) => KIND_RULES[name](context) as RecordKind<StoredRecord, { name: string }, unknown>,
  );
  const services = perKind<KindServices>((name) => new RecordService(kinds[name], collections[name]) as KindServices[KindName]);
  return {
    ...services,
    // The principal cache serves tokens.
    tokens: new TokenService(
      collection<UserRecord>('users', 'name', 'listed'),
      collection<TokenRecord>('tokens', 'key_hash', 'written-often'),
      new RedisRevocationFeed(redis, prefix),
    ),
    collections,
    followChanges: () => changes.listen(redis, prefix),
    async seed() {
      for (const name of KIND_NAMES) await services[name].seed();
    },
  };
}
