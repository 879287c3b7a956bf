import type { Redis } from 'ioredis';
import type { BaseRecord, RecordCollection, RecordPage, WriteOutcome } from '../../records/record-collection.js';
import { translateRedisError } from './redis-errors.js';

/*
 * Layout for collection C under prefix P (one hash tag per collection, so every key a script
 * touches sits in one cluster slot):
 *   {P:C}:records  hash  id -> record JSON
 *   {P:C}:keys     hash  unique key -> id
 *   {P:C}:order    zset  unique keys, score 0 (Redis orders equal scores lexically)
 *   {P:C}:flag     string id of the record holding the exclusive flag
 */

const INSERT = `
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'duplicate-key' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
if ARGV[4] == '1' then redis.call('SET', KEYS[4], ARGV[1]) end
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
return 'ok'`;

const REMOVE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local key = cjson.decode(current)[ARGV[2]]
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], key)
redis.call('ZREM', KEYS[3], key)
if redis.call('GET', KEYS[4]) == ARGV[1] then redis.call('DEL', KEYS[4]) end
return 1`;

type ScriptedRedis = Redis & {
  aiopsRecordInsert(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<WriteOutcome>;
  aiopsRecordSwap(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<WriteOutcome>;
  aiopsRecordRemove(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<number>;
};

function withScripts(redis: Redis): ScriptedRedis {
  if (!('aiopsRecordInsert' in redis)) {
    redis.defineCommand('aiopsRecordInsert', { numberOfKeys: 4, lua: INSERT });
    redis.defineCommand('aiopsRecordSwap', { numberOfKeys: 4, lua: SWAP });
    redis.defineCommand('aiopsRecordRemove', { numberOfKeys: 4, lua: REMOVE });
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
  private readonly keys: [records: string, keys: string, order: string, flag: string];
  private readonly keyField: keyof R & string;

  constructor(redis: Redis, { prefix, name, keyField }: RedisRecordCollectionOptions<R>) {
    this.redis = withScripts(redis);
    const tag = `{${prefix}:${name}}`;
    this.keys = [`${tag}:records`, `${tag}:keys`, `${tag}:order`, `${tag}:flag`];
    this.keyField = keyField;
  }

  async get(id: string): Promise<R | null> {
    const raw = await translateRedisError(this.redis.hget(this.keys[0], id));
    return raw === null ? null : (JSON.parse(raw) as R);
  }

  async getByKey(key: string): Promise<R | null> {
    const id = await translateRedisError(this.redis.hget(this.keys[1], key));
    return id === null ? null : this.get(id);
  }

  async all(): Promise<R[]> {
    const ids = await translateRedisError(this.orderedIds());
    return this.load(ids);
  }

  async page(offset: number, limit: number): Promise<RecordPage<R>> {
    const ids = await translateRedisError(this.orderedIds());
    return { count: ids.length, results: await this.load(ids.slice(offset, offset + limit)) };
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

  /** Ids ordered by key, with the flag holder first. One round trip. */
  private async orderedIds(): Promise<string[]> {
    const [keysResult, flagResult] = (await this.redis
      .multi()
      .zrange(this.keys[2], 0, -1)
      .get(this.keys[3])
      .exec()) as [[Error | null, string[]], [Error | null, string | null]];
    if (keysResult[0]) throw keysResult[0];
    const orderedKeys = keysResult[1];
    if (orderedKeys.length === 0) return [];
    const ids = (await this.redis.hmget(this.keys[1], ...orderedKeys)).filter((id): id is string => id !== null);
    const holder = flagResult[1];
    if (holder === null || !ids.includes(holder)) return ids;
    return [holder, ...ids.filter((id) => id !== holder)];
  }

  private async load(ids: string[]): Promise<R[]> {
    if (ids.length === 0) return [];
    const raws = await translateRedisError(this.redis.hmget(this.keys[0], ...ids));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as R);
  }
}
