import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../kernel/redis/redis-client.js';
import type { IndexState } from '../index-state.js';
import type { DocumentCollection, KnowledgeState, UserRepositories } from '../knowledge-state.port.js';
import type { ChunkBatch, ChunkChanges, SharedLexicalChunks, StoredChunk } from '../lexical-chunks.port.js';
import type { Manifest } from '../manifest.js';
import { repositorySlug } from '../repository.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import { slices } from '../../kernel/slices.js';

/** Fields per HSET, HDEL or ZADD: a large repository's chunks go in several commands. */
const BATCH = 500;

/** JSON documents as the fields of one hash. */
class RedisDocuments<T> implements DocumentCollection<T> {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  async get(name: string): Promise<T | undefined> {
    const value = await translateRedisError(this.redis.hget(this.key, name));
    return value === null ? undefined : (JSON.parse(value) as T);
  }

  async all(): Promise<Map<string, T>> {
    const fields = await translateRedisError(this.redis.hgetall(this.key));
    return new Map(Object.entries(fields).map(([name, value]) => [name, JSON.parse(value) as T]));
  }

  async put(name: string, value: T): Promise<void> {
    await translateRedisError(this.redis.hset(this.key, name, JSON.stringify(value)));
  }

  async delete(name: string): Promise<void> {
    await translateRedisError(this.redis.hdel(this.key, name));
  }
}

/**
 * The knowledge state in Redis, shared by every process of every machine. Layout (hashes, field
 * per repository name): `{P:kb}:repositories` (field `user`: the user list), `{P:kb}:runs`,
 * `{P:kb}:manifests`.
 */
export function redisKnowledgeState(redis: RedisClient, prefix: string): KnowledgeState {
  const key = (name: string) => `{${prefix}:kb}:${name}`;
  return {
    repositories: new RedisDocuments<UserRepositories>(redis, key('repositories')),
    runs: new RedisDocuments<IndexState>(redis, key('runs')),
    manifests: new RedisDocuments<Manifest>(redis, key('manifests')),
  };
}

/**
 * Gives a change of a repository's lexical chunks its version. KEYS: meta, log. ARGV: the version
 * the writer read, a new lineage id (kept if the repository has none), 1 when the change rewrote
 * most of the repository (readers behind load it whole), how many versions the log keeps.
 */
const COMMIT = `
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return redis.error_reply('ERR another change of these chunks was committed meanwhile') end
local version = current + 1
redis.call('HSETNX', KEYS[1], 'epoch', ARGV[2])
redis.call('HSET', KEYS[1], 'version', version)
local floor = tonumber(redis.call('HGET', KEYS[1], 'floor') or '0')
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[2])
  floor = version
elseif version - tonumber(ARGV[4]) > floor then
  floor = version - tonumber(ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', floor)
end
redis.call('HSET', KEYS[1], 'floor', floor)
return redis.call('HGET', KEYS[1], 'epoch') .. ':' .. version
`;

/** Versions whose changes the log keeps: a reader further behind loads the repository whole. */
const LOG_VERSIONS = 200;
/** Chunks per HSCAN step and per HMGET when a reader catches up. */
const READ_BATCH = 1_000;

type CommitCommand = (meta: string, log: string, ...args: string[]) => Promise<string>;

async function* nothing(): AsyncGenerator<ChunkBatch> {}

/**
 * Lexical chunks in Redis, one hash slot per repository (`{P:kb:owner~name}`): `:chunks` (hash,
 * chunk id -> JSON), `:meta` (hash: `epoch`, a lineage id made by the repository's first change;
 * `version`, a counter every commit increases; `floor`, the version before which the log is
 * incomplete) and `:log` (sorted set: each chunk id written or deleted, scored by the version of
 * its last change). A machine holding version n reads the ids scored above n and those chunks; one
 * holding another lineage, or below the floor, reads the hash whole. A change rewriting half the
 * repository or more empties the log (a reader behind it loads everything, which costs it about
 * as much), so the log never holds the ids of a first run.
 */
export class RedisLexicalChunks implements SharedLexicalChunks {
  private readonly commitCommand: CommitCommand;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    redis.defineCommand('aiopsLexicalCommit', { numberOfKeys: 2, lua: COMMIT });
    const command = (redis as unknown as { aiopsLexicalCommit: CommitCommand }).aiopsLexicalCommit;
    this.commitCommand = (...args) => command.apply(redis, args);
  }

  private keys(repository: string): { chunks: string; meta: string; log: string } {
    const tag = `{${this.prefix}:kb:${repositorySlug(repository)}}`;
    return { chunks: `${tag}:chunks`, meta: `${tag}:meta`, log: `${tag}:log` };
  }

  async put(repository: string, chunks: StoredChunk[]): Promise<void> {
    const key = this.keys(repository).chunks;
    await Promise.all(
      [...slices(chunks, BATCH)].map((part) =>
        translateRedisError(this.redis.hset(key, Object.fromEntries(part.map((item) => [item.id, JSON.stringify(item)])))),
      ),
    );
  }

  async commit(repository: string, { upserted, deleted }: { upserted: string[]; deleted: string[] }): Promise<string> {
    const { chunks, meta, log } = this.keys(repository);
    const [version, total] = await Promise.all([
      translateRedisError(this.redis.hget(meta, 'version')),
      translateRedisError(this.redis.hlen(chunks)),
    ]);
    const next = Number(version ?? 0) + 1;
    const reset = (upserted.length + deleted.length) * 2 >= total;
    const writes: Array<Promise<unknown>> = [...slices(deleted, BATCH)].map((part) =>
      translateRedisError(this.redis.hdel(chunks, ...part)),
    );
    if (!reset) {
      for (const part of slices([...upserted, ...deleted], BATCH)) {
        writes.push(translateRedisError(this.redis.zadd(log, ...part.flatMap((id) => [next, id]))));
      }
    }
    await Promise.all(writes);
    return translateRedisError(this.commitCommand(meta, log, String(next - 1), randomUUID(), reset ? '1' : '0', String(LOG_VERSIONS)));
  }

  async changes(repository: string, since: string | undefined): Promise<ChunkChanges> {
    const { chunks, meta, log } = this.keys(repository);
    const [sinceEpoch, sinceVersion] = since?.split(':') ?? [];
    const held = Number(sinceVersion ?? 0);
    const [[epoch, version, floor], changed] = await Promise.all([
      translateRedisError(this.redis.hmget(meta, 'epoch', 'version', 'floor')),
      since === undefined ? Promise.resolve([]) : translateRedisError(this.redis.zrangebyscore(log, `(${held}`, '+inf')),
    ]);
    if (!epoch || !version) return { version: undefined, complete: true, batches: nothing() };
    const current = `${epoch}:${version}`;
    const redis = this.redis;
    if (since === undefined || sinceEpoch !== epoch || held < Number(floor ?? 0)) {
      return {
        version: current,
        complete: true,
        batches: (async function* () {
          let cursor = '0';
          do {
            const [next, fields] = await translateRedisError(redis.hscan(chunks, cursor, 'COUNT', READ_BATCH));
            cursor = next;
            yield { upsert: fields.filter((_, index) => index % 2 === 1).map((value) => JSON.parse(value) as StoredChunk), delete: [] };
          } while (cursor !== '0');
        })(),
      };
    }
    return {
      version: current,
      complete: false,
      batches: (async function* () {
        for (const ids of slices(changed, READ_BATCH)) {
          const values = await translateRedisError(redis.hmget(chunks, ...ids));
          yield {
            upsert: values.filter((value): value is string => value !== null).map((value) => JSON.parse(value) as StoredChunk),
            delete: ids.filter((_, index) => values[index] === null),
          };
        }
      })(),
    };
  }

  ids(repository: string): Promise<string[]> {
    return translateRedisError(this.redis.hkeys(this.keys(repository).chunks));
  }

  async read(repository: string, ids: string[]): Promise<StoredChunk[]> {
    const key = this.keys(repository).chunks;
    const found: StoredChunk[] = [];
    for (const part of slices(ids, READ_BATCH)) {
      const values = await translateRedisError(this.redis.hmget(key, ...part));
      for (const value of values) if (value !== null) found.push(JSON.parse(value) as StoredChunk);
    }
    return found;
  }

  async drop(repository: string): Promise<void> {
    const { chunks, meta, log } = this.keys(repository);
    await translateRedisError(this.redis.del(chunks, meta, log));
  }
}
