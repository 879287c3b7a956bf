import type { Redis } from 'ioredis';
import type { BaseRecord, Listing, RecordCollection, RecordPage, WriteOutcome } from '../../records/record-collection.js';
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

// One page in key order with the flag holder first; returns {total, holder id or '', record JSON...}.
const PAGE = `
local offset, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local total = redis.call('ZCARD', KEYS[3])
local holder = redis.call('GET', KEYS[4])
local holderKey = false
if holder then
  local raw = redis.call('HGET', KEYS[1], holder)
  if raw then holderKey = cjson.decode(raw)[ARGV[3]] else holder = false end
end
local ids = {}
local first, last = offset, offset + limit - 1
if holder then
  if offset == 0 then
    table.insert(ids, holder)
    last = limit - 2
  else
    first, last = offset - 1, offset + limit - 2
  end
end
if last >= first then
  local from, to = first, last
  if holder then
    local rank = redis.call('ZRANK', KEYS[3], holderKey)
    if rank and rank <= first then from, to = first + 1, last + 1
    elseif rank and rank <= last then to = last + 1 end
  end
  for _, key in ipairs(redis.call('ZRANGE', KEYS[3], from, to)) do
    if key ~= holderKey then
      local id = redis.call('HGET', KEYS[2], key)
      if id then table.insert(ids, id) end
    end
  end
end
local out = {total, holder or ''}
if #ids > 0 then
  for _, raw in ipairs(redis.call('HMGET', KEYS[1], unpack(ids))) do
    if raw then table.insert(out, raw) end
  end
end
return out`;

const GET_BY_KEY = `
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[1], id)`;

type ScriptedRedis = Redis & {
  aiopsRecordPage(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<[number, string, ...string[]]>;
  aiopsRecordGetByKey(k1: string, k2: string, k3: string, k4: string, key: string): Promise<string | null>;
  aiopsRecordInsert(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<WriteOutcome>;
  aiopsRecordSwap(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<WriteOutcome>;
  aiopsRecordRemove(k1: string, k2: string, k3: string, k4: string, ...args: string[]): Promise<number>;
};

function withScripts(redis: Redis): ScriptedRedis {
  if (!('aiopsRecordInsert' in redis)) {
    redis.defineCommand('aiopsRecordInsert', { numberOfKeys: 4, lua: INSERT });
    redis.defineCommand('aiopsRecordSwap', { numberOfKeys: 4, lua: SWAP });
    redis.defineCommand('aiopsRecordRemove', { numberOfKeys: 4, lua: REMOVE });
    redis.defineCommand('aiopsRecordPage', { numberOfKeys: 4, lua: PAGE });
    redis.defineCommand('aiopsRecordGetByKey', { numberOfKeys: 4, lua: GET_BY_KEY });
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
    const raw = await translateRedisError(this.redis.aiopsRecordGetByKey(...this.keys, key));
    return raw === null ? null : (JSON.parse(raw) as R);
  }

  async getWithFlagHolder(id: string): Promise<{ record: R | null; flagHolder: string | null }> {
    const [raw, holder] = await translateRedisError(this.pipelined<[string | null, string | null]>((p) => p.hget(this.keys[0], id).get(this.keys[3])));
    return { record: raw === null ? null : (JSON.parse(raw) as R), flagHolder: holder };
  }

  async all(): Promise<Listing<R>> {
    const [raws, holder] = await translateRedisError(
      this.pipelined<[Record<string, string>, string | null]>((p) => p.hgetall(this.keys[0]).get(this.keys[3])),
    );
    const records = Object.values(raws).map((raw) => JSON.parse(raw) as R);
    const keyOf = (record: R) => this.keyOf(record);
    // Same order as the sorted set: by key, then the flag holder moved first.
    records.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
    const first = records.findIndex((record) => record.id === holder);
    if (first > 0) records.unshift(...records.splice(first, 1));
    return { records, flagHolder: holder };
  }

  async page(offset: number, limit: number): Promise<RecordPage<R> & { flagHolder: string | null }> {
    const [total, holder, ...raws] = await translateRedisError(
      this.redis.aiopsRecordPage(...this.keys, String(offset), String(limit), this.keyField),
    );
    return { count: total, results: raws.map((raw) => JSON.parse(raw) as R), flagHolder: holder || null };
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
