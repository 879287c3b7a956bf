import type { RedisClient } from '../../kernel/redis/redis-client.js';
import type { BaseRecord, BatchOutcome, BatchWrite, Listing, RecordCollection, WriteOutcome } from '../record-collection.port.js';
import { recordChangesChannel, type RecordChanges } from './record-changes.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import { confirmedWrite, NO_REPLICA_WAIT, type ReplicaWait } from '../../kernel/redis/redis-replication.js';

/*
 * Layout for collection C under prefix P (one hash tag per collection, so every key a script
 * touches sits in one cluster slot):
 *   {P:C}:records  hash  id -> record JSON
 *   {P:C}:keys     hash  unique key -> id
 *   {P:C}:order    zset  unique keys, score 0 (RedisClient orders equal scores lexically)
 *   {P:C}:flag     string id of the record holding the exclusive flag
 *   {P:C}:version  integer, raised by every write (readers cache a whole listing against it)
 * Every write also publishes C on the records-changed channel (the script's last two arguments),
 * so processes that listen (RecordChanges) keep their cached listings without asking again; a
 * collection that does not announce its writes passes no channel, and its readers ask each time.
 */

const INSERT = `
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'duplicate-key' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
if ARGV[4] == '1' then redis.call('SET', KEYS[4], ARGV[1]) end
redis.call('INCR', KEYS[5])
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return 'ok'`;

const SWAP = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 'gone' end
if current ~= ARGV[2] then return 'changed' end
if ARGV[4] ~= ARGV[5] then
  if redis.call('HEXISTS', KEYS[2], ARGV[5]) == 1 then return 'duplicate-key' end
  redis.call('HDEL', KEYS[2], ARGV[4])
  redis.call('ZREM', KEYS[3], ARGV[4])
  redis.call('HSET', KEYS[2], ARGV[5], ARGV[1])
  redis.call('ZADD', KEYS[3], 0, ARGV[5])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[6] == '1' then
  redis.call('SET', KEYS[4], ARGV[1])
elseif ARGV[6] == '0' and redis.call('GET', KEYS[4]) == ARGV[1] then
  redis.call('DEL', KEYS[4])
end
redis.call('INCR', KEYS[5])
if ARGV[7] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[8]) end
return 'ok'`;

// Everything is read before the first write: a script that fails half-way keeps what it wrote.
// A record whose key field is not a string (stored before writes were checked) is found in the
// key index by its id.
const REMOVE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local decoded, record = pcall(cjson.decode, current)
local key = decoded and type(record) == 'table' and record[ARGV[2]] or nil
if type(key) ~= 'string' then
  key = nil
  local entries = redis.call('HGETALL', KEYS[2])
  for i = 1, #entries, 2 do
    if entries[i + 1] == ARGV[1] then key = entries[i] break end
  end
end
redis.call('HDEL', KEYS[1], ARGV[1])
if key then
  redis.call('HDEL', KEYS[2], key)
  redis.call('ZREM', KEYS[3], key)
end
if redis.call('GET', KEYS[4]) == ARGV[1] then redis.call('DEL', KEYS[4]) end
redis.call('INCR', KEYS[5])
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1`;

// ARGV: the records-changed channel ('' for none), the collection, then 7 per write: kind (insert, swap or
// remove), id, key before, key after, the record expected, the record to store, flag ('1' takes it,
// '0' gives it up, '' leaves it). Every check comes before the first write: the batch is written
// whole or not at all. Keys given up are freed before keys are taken, so one record of the batch
// may take another's key. A removed record whose key field is not a string is found by its id.
const BATCH = `
local count = (#ARGV - 2) / 7
local function arg(i, field) return ARGV[2 + (i - 1) * 7 + field] end
local function indexedKey(id, hint)
  if redis.call('HGET', KEYS[2], hint) == id then return hint end
  local entries = redis.call('HGETALL', KEYS[2])
  for e = 1, #entries, 2 do
    if entries[e + 1] == id then return entries[e] end
  end
  return nil
end
local freed, given, claimed = {}, {}, {}
for i = 1, count do
  local kind, id, before, after = arg(i, 1), arg(i, 2), arg(i, 3), arg(i, 4)
  if kind ~= 'insert' then
    local current = redis.call('HGET', KEYS[1], id)
    if not current then return {'gone', i - 1} end
    if current ~= arg(i, 5) then return {'changed', i - 1} end
    if kind == 'remove' or before ~= after then
      local key = indexedKey(id, before)
      if key then
        freed[key] = true
        given[i] = key
      end
    end
  end
end
for i = 1, count do
  local kind, before, after = arg(i, 1), arg(i, 3), arg(i, 4)
  if kind == 'insert' or (kind == 'swap' and before ~= after) then
    if claimed[after] or (not freed[after] and redis.call('HEXISTS', KEYS[2], after) == 1) then return {'duplicate-key', i - 1} end
    claimed[after] = true
  end
end
for i = 1, count do
  if given[i] then
    redis.call('HDEL', KEYS[2], given[i])
    redis.call('ZREM', KEYS[3], given[i])
  end
end
for i = 1, count do
  local kind, id, before, after, flag = arg(i, 1), arg(i, 2), arg(i, 3), arg(i, 4), arg(i, 7)
  if kind == 'remove' then
    redis.call('HDEL', KEYS[1], id)
    if redis.call('GET', KEYS[4]) == id then redis.call('DEL', KEYS[4]) end
  else
    redis.call('HSET', KEYS[1], id, arg(i, 6))
    if kind == 'insert' or before ~= after then
      redis.call('HSET', KEYS[2], after, id)
      redis.call('ZADD', KEYS[3], 0, after)
    end
    if flag == '1' then
      redis.call('SET', KEYS[4], id)
    elseif flag == '0' and redis.call('GET', KEYS[4]) == id then
      redis.call('DEL', KEYS[4])
    end
  end
end
redis.call('INCR', KEYS[5])
if ARGV[1] ~= '' then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return {'ok', -1}`;

const GET_BY_KEY = `
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[1], id)`;

type ScriptedRedis = RedisClient & {
  aiopsRecordGetByKey(k1: string, k2: string, k3: string, k4: string, k5: string, key: string): Promise<string | null>;
};

function withScripts(redis: RedisClient): ScriptedRedis {
  if (!('aiopsRecordInsert' in redis)) {
    redis.defineCommand('aiopsRecordInsert', { numberOfKeys: 5, lua: INSERT });
    redis.defineCommand('aiopsRecordSwap', { numberOfKeys: 5, lua: SWAP });
    redis.defineCommand('aiopsRecordRemove', { numberOfKeys: 5, lua: REMOVE });
    redis.defineCommand('aiopsRecordBatch', { numberOfKeys: 5, lua: BATCH });
    redis.defineCommand('aiopsRecordGetByKey', { numberOfKeys: 5, lua: GET_BY_KEY });
  }
  return redis as ScriptedRedis;
}

export interface RedisRecordCollectionOptions<R> {
  prefix: string;
  /** Collection name, e.g. `llm-models`. */
  name: string;
  /** The field that is unique across the collection. */
  keyField: keyof R & string;
  /** Writes heard from every process; with it, an unchanged cached listing costs no round trip. */
  changes?: RecordChanges;
  /**
   * Writes publish a notice that every process hears (the default). Off for a collection written
   * far more often than listed (tokens: a delegated key each chat turn): the notices would cost
   * every process a message per write, and its listing is checked against the version instead.
   */
  announced?: boolean;
  /**
   * Serve single-record reads from the cached listing too (loading it when stale): for small
   * collections read on every request and rarely written (models, secrets, statuses). A collection
   * written often would be read whole again after each write.
   */
  pointReadsFromListing?: boolean;
  /** Replicas each write must reach before it is answered (none by default). */
  replicaWait?: ReplicaWait;
}

/** A whole listing, indexed, with the version it was read at and the stamp it was checked under. */
interface CachedListing<R> {
  version: string;
  stamp: string | undefined;
  listing: Listing<R>;
  byId: Map<string, R>;
  byKey: Map<string, R>;
}

export class RedisRecordCollection<R extends BaseRecord> implements RecordCollection<R> {
  private readonly redis: ScriptedRedis;
  private readonly keys: [records: string, keys: string, order: string, flag: string, version: string];
  /** The records-changed channel ('' when unannounced) and this collection's name: the last two arguments of each write. */
  private readonly notice: [channel: string, collection: string];
  private cached?: CachedListing<R>;
  private readonly keyField: keyof R & string;
  private readonly changes?: RecordChanges;
  private readonly pointReadsFromListing: boolean;
  private readonly replicaWait: ReplicaWait;

  constructor(
    redis: RedisClient,
    {
      prefix,
      name,
      keyField,
      changes,
      announced = true,
      pointReadsFromListing = false,
      replicaWait = NO_REPLICA_WAIT,
    }: RedisRecordCollectionOptions<R>,
  ) {
    this.redis = withScripts(redis);
    const tag = `{${prefix}:${name}}`;
    this.keys = [`${tag}:records`, `${tag}:keys`, `${tag}:order`, `${tag}:flag`, `${tag}:version`];
    this.notice = [announced ? recordChangesChannel(prefix) : '', name];
    this.keyField = keyField;
    // Unannounced writes of other processes are never heard: no stamp vouches for a cached listing.
    this.changes = announced ? changes : undefined;
    this.pointReadsFromListing = pointReadsFromListing;
    this.replicaWait = replicaWait;
  }

  async get(id: string): Promise<R | null> {
    if (this.pointReadsFromListing) return this.fromListing((cached) => cached.byId.get(id));
    const raw = await translateRedisError(this.redis.hget(this.keys[0], id));
    return raw === null ? null : (JSON.parse(raw) as R);
  }

  async getByKey(key: string): Promise<R | null> {
    if (this.pointReadsFromListing) return this.fromListing((cached) => cached.byKey.get(key));
    const raw = await translateRedisError(this.redis.aiopsRecordGetByKey(...this.keys, key));
    return raw === null ? null : (JSON.parse(raw) as R);
  }

  async getWithFlagHolder(id: string): Promise<{ record: R | null; flagHolder: string | null }> {
    if (this.pointReadsFromListing) {
      const record = await this.fromListing((cached) => cached.byId.get(id));
      return { record, flagHolder: this.cached?.listing.flagHolder ?? null };
    }
    const [raw, holder] = await translateRedisError(
      this.pipelined<[string | null, string | null]>((p) => p.hget(this.keys[0], id).get(this.keys[3])),
    );
    return { record: raw === null ? null : (JSON.parse(raw) as R), flagHolder: holder };
  }

  async all(): Promise<Listing<R>> {
    const { listing } = await this.listing();
    // A new array each time: callers may sort or splice what they get.
    return { records: [...listing.records], flagHolder: listing.flagHolder };
  }

  insert(record: R, options: { flag?: boolean } = {}): Promise<WriteOutcome> {
    return this.written('aiopsRecordInsert', [
      ...this.keys,
      record.id,
      this.keyOf(record),
      JSON.stringify(record),
      options.flag ? '1' : '',
      ...this.notice,
    ]);
  }

  swap(expected: R, next: R, options: { flag?: boolean } = {}): Promise<WriteOutcome> {
    const flag = options.flag === undefined ? '' : options.flag ? '1' : '0';
    return this.written('aiopsRecordSwap', [
      ...this.keys,
      expected.id,
      JSON.stringify(expected),
      JSON.stringify(next),
      this.keyOf(expected),
      this.keyOf(next),
      flag,
      ...this.notice,
    ]);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.written<number>('aiopsRecordRemove', [...this.keys, id, this.keyField, ...this.notice])) === 1;
  }

  async writeBatch(writes: readonly BatchWrite<R>[]): Promise<BatchOutcome> {
    if (writes.length === 0) return { outcome: 'ok' };
    const flagArgument = (flag: boolean | undefined) => (flag === undefined ? '' : flag ? '1' : '0');
    const args = writes.flatMap((write) => {
      switch (write.kind) {
        case 'insert':
          return ['insert', write.record.id, '', this.keyOf(write.record), '', JSON.stringify(write.record), flagArgument(write.flag)];
        case 'swap':
          return [
            'swap',
            write.expected.id,
            this.keyOf(write.expected),
            this.keyOf(write.next),
            JSON.stringify(write.expected),
            JSON.stringify(write.next),
            flagArgument(write.flag),
          ];
        case 'remove':
          return ['remove', write.expected.id, this.keyOf(write.expected), '', JSON.stringify(write.expected), '', ''];
      }
    });
    const [outcome, index] = await this.written<[BatchOutcome['outcome'], number]>('aiopsRecordBatch', [
      ...this.keys,
      ...this.notice,
      ...args,
    ]);
    return outcome === 'ok' ? { outcome } : { outcome, index };
  }

  async flagHolder(): Promise<string | null> {
    if (this.pointReadsFromListing) return (await this.listing()).listing.flagHolder;
    return translateRedisError(this.redis.get(this.keys[3]));
  }

  /**
   * Runs a write script (confirmed on the replicas asked for). This process's own writes count at
   * once, before their published notice comes back.
   */
  private async written<T = WriteOutcome>(
    script: 'aiopsRecordInsert' | 'aiopsRecordSwap' | 'aiopsRecordRemove' | 'aiopsRecordBatch',
    args: string[],
  ): Promise<T> {
    try {
      return await translateRedisError(confirmedWrite<T>(this.redis, this.replicaWait, script, args));
    } finally {
      this.changes?.changed(this.notice[1]);
    }
  }

  /**
   * A record found in the listing. A miss is checked against the store before it counts: the
   * notice of a create made elsewhere may not have arrived yet.
   */
  private async fromListing(find: (cached: CachedListing<R>) => R | undefined): Promise<R | null> {
    return find(await this.listing()) ?? find(await this.listing(true)) ?? null;
  }

  /**
   * Every record, parsed once per collection version: free while no write has been heard since
   * it was read (see RecordChanges), otherwise one GET of the version, and the whole collection
   * only when that moved.
   */
  private async listing(verify = false): Promise<CachedListing<R>> {
    // Taken before reading: a write heard while the read is under way changes the stamp, so the
    // result is checked again next time.
    const stamp = this.changes?.stamp(this.notice[1]);
    if (!verify && stamp !== undefined && this.cached?.stamp === stamp) return this.cached;
    const version = (await translateRedisError(this.redis.get(this.keys[4]))) ?? '0';
    if (this.cached?.version === version) {
      this.cached.stamp = stamp;
      return this.cached;
    }
    // One transaction, so the records, the flag and the version belong together.
    const [[, raws], [, holder], [, current]] = (await translateRedisError(
      this.redis.multi().hgetall(this.keys[0]).get(this.keys[3]).get(this.keys[4]).exec(),
    )) as [[null, Record<string, string>], [null, string | null], [null, string | null]];
    // Frozen all the way down: every reader in this process shares these objects.
    const records = Object.values(raws).map(
      (raw) => JSON.parse(raw, (_key, value: unknown) => (typeof value === 'object' && value !== null ? Object.freeze(value) : value)) as R,
    );
    const keyOf = (record: R) => this.keyOf(record);
    // Same order as the sorted set: by key, then the flag holder moved first.
    records.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
    const first = records.findIndex((record) => record.id === holder);
    if (first > 0) records.unshift(...records.splice(first, 1));
    this.cached = {
      version: current ?? '0',
      stamp,
      listing: { records, flagHolder: holder },
      byId: new Map(records.map((record) => [record.id, record])),
      byKey: new Map(records.map((record) => [keyOf(record), record])),
    };
    return this.cached;
  }

  private keyOf(record: R): string {
    return String(record[this.keyField]);
  }

  private async pipelined<T extends unknown[]>(
    build: (pipeline: ReturnType<RedisClient['pipeline']>) => ReturnType<RedisClient['pipeline']>,
  ): Promise<T> {
    const results = (await build(this.redis.pipeline()).exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as T;
  }
}
