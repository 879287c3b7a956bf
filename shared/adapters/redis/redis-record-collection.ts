import type { Redis } from 'ioredis';
import type { BaseRecord, Listing, RecordCollection, WriteOutcome } from '../../records/record-collection.js';
import { translateRedisError } from './redis-errors.js';

/*
 * Layout for collection C under prefix P (one hash tag per collection, so every key a script
 * touches sits in one cluster slot):
 *   {P:C}:records  hash  id -> record JSON
 *   {P:C}:keys     hash  unique key -> id
 *   {P:C}:order    zset  unique keys, score 0 (Redis orders equal scores lexically)
 *   {P:C}:flag     string id of the record holding the exclusive flag
 *   {P:C}:version  integer, raised by every write (readers cache a whole listing against it)
 */

const INSERT = `
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'duplicate-key' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
if ARGV[4] == '1' then redis.call('SET', KEYS[4], ARGV[1]) end
redis.call('INCR', KEYS[5])
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
return 'ok'`;

const REMOVE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local key = cjson.decode(current)[ARGV[2]]
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], key)
redis.call('ZREM', KEYS[3], key)
if redis.call('GET', KEYS[4]) == ARGV[1] then redis.call('DEL', KEYS[4]) end
redis.call('INCR', KEYS[5])
return 1`;

const GET_BY_KEY = `
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[1], id)`;

type ScriptedRedis = Redis & {
  aiopsRecordGetByKey(k1: string, k2: string, k3: string, k4: string, k5: string, key: string): Promise<string | null>;
  aiopsRecordInsert(k1: string, k2: string, k3: string, k4: string, k5: string, ...args: string[]): Promise<WriteOutcome>;
  aiopsRecordSwap(k1: string, k2: string, k3: string, k4: string, k5: string, ...args: string[]): Promise<WriteOutcome>;
  aiopsRecordRemove(k1: string, k2: string, k3: string, k4: string, k5: string, ...args: string[]): Promise<number>;
};

function withScripts(redis: Redis): ScriptedRedis {
  if (!('aiopsRecordInsert' in redis)) {
    redis.defineCommand('aiopsRecordInsert', { numberOfKeys: 5, lua: INSERT });
    redis.defineCommand('aiopsRecordSwap', { numberOfKeys: 5, lua: SWAP });
    redis.defineCommand('aiopsRecordRemove', { numberOfKeys: 5, lua: REMOVE });
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
}

export class RedisRecordCollection<R extends BaseRecord> implements RecordCollection<R> {
  private readonly redis: ScriptedRedis;
  private readonly keys: [records: string, keys: string, order: string, flag: string, version: string];
  /** The last whole listing read, with the collection version it was read at. */
  private cached?: { version: string; listing: Listing<R> };
  private readonly keyField: keyof R & string;

  constructor(redis: Redis, { prefix, name, keyField }: RedisRecordCollectionOptions<R>) {
    this.redis = withScripts(redis);
    const tag = `{${prefix}:${name}}`;
    this.keys = [`${tag}:records`, `${tag}:keys`, `${tag}:order`, `${tag}:flag`, `${tag}:version`];
    this.keyField = keyField;
  }

  async get(id: string): Promise<R | null> {
    const raw = await translateRedisError(this.redis.hget(this.keys[0], id));
    return raw === null ? null : (JSON.parse(raw) as R);
  }

  async getByKey(key: string): Promise<R | null> {
    const raw = await translateRedisError(this.redis.aiopsRecordGetByKey(...this.keys, key));
    return raw === null ? null : (JSON.parse(raw) as R);
  }

  async getWithFlagHolder(id: string): Promise<{ record: R | null; flagHolder: string | null }> {
    const [raw, holder] = await translateRedisError(this.pipelined<[string | null, string | null]>((p) => p.hget(this.keys[0], id).get(this.keys[3])));
    return { record: raw === null ? null : (JSON.parse(raw) as R), flagHolder: holder };
  }

  /** Every record, parsed once per collection version: unchanged collections cost one GET. */
  async all(): Promise<Listing<R>> {
    const version = (await translateRedisError(this.redis.get(this.keys[4]))) ?? '0';
    if (this.cached?.version !== version) {
      // One transaction, so the records, the flag and the version belong together.
      const [[, raws], [, holder], [, current]] = (await translateRedisError(
        this.redis.multi().hgetall(this.keys[0]).get(this.keys[3]).get(this.keys[4]).exec(),
      )) as [[null, Record<string, string>], [null, string | null], [null, string | null]];
      const records = Object.values(raws).map((raw) => JSON.parse(raw) as R);
      const keyOf = (record: R) => this.keyOf(record);
      // Same order as the sorted set: by key, then the flag holder moved first.
      records.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
      const first = records.findIndex((record) => record.id === holder);
      if (first > 0) records.unshift(...records.splice(first, 1));
      this.cached = { version: current ?? '0', listing: { records, flagHolder: holder } };
    }
    // A new array each time: callers may sort or splice what they get.
    return { records: [...this.cached.listing.records], flagHolder: this.cached.listing.flagHolder };
  }

  insert(record: R, options: { flag?: boolean } = {}): Promise<WriteOutcome> {
    return translateRedisError(
      this.redis.aiopsRecordInsert(...this.keys, record.id, this.keyOf(record), JSON.stringify(record), options.flag ? '1' : ''),
    );
  }

  swap(expected: R, next: R, options: { flag?: boolean } = {}): Promise<WriteOutcome> {
    const flag = options.flag === undefined ? '' : options.flag ? '1' : '0';
    return translateRedisError(
      this.redis.aiopsRecordSwap(
        ...this.keys,
        expected.id,
        JSON.stringify(expected),
        JSON.stringify(next),
        this.keyOf(expected),
        this.keyOf(next),
        flag,
      ),
    );
  }

  async remove(id: string): Promise<boolean> {
    return (await translateRedisError(this.redis.aiopsRecordRemove(...this.keys, id, this.keyField))) === 1;
  }

  flagHolder(): Promise<string | null> {
    return translateRedisError(this.redis.get(this.keys[3]));
  }

  private keyOf(record: R): string {
    return String(record[this.keyField]);
  }

  private async pipelined<T extends unknown[]>(build: (pipeline: ReturnType<Redis['pipeline']>) => ReturnType<Redis['pipeline']>): Promise<T> {
    const results = (await build(this.redis.pipeline()).exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as T;
  }
}
