import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../kernel/redis/redis-client.js';
import type { IndexState } from '../index-state.js';
import type { DocumentCollection, KnowledgeState, UserRepositories } from '../knowledge-state.port.js';
import type { LexicalChunks, StoredChunk } from '../lexical-chunks.port.js';
import type { Manifest } from '../manifest.js';
import { repositorySlug } from '../repository.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';

/** Fields per HSET or HDEL: a large repository's chunks go in several commands of one transaction. */
const BATCH = 500;

/** Runs a transaction; a command refused inside it (out of memory, say) fails the whole call. */
async function commit(transaction: ReturnType<RedisClient['multi']>): Promise<void> {
  const results = await translateRedisError(transaction.exec());
  if (!results) throw new Error('knowledge-base transaction was discarded');
  const failed = results.find(([error]) => error);
  if (failed?.[0]) await translateRedisError(Promise.reject(failed[0]));
}

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
 * Lexical chunks in Redis, one hash slot per repository: `{P:kb:owner~name}:chunks` (hash, chunk
 * id -> JSON) and `{P:kb:owner~name}:version` (a random token replaced in the same transaction as
 * every change, so a reader holding an older token builds its index again).
 */
export class RedisLexicalChunks implements LexicalChunks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private keys(repository: string): { chunks: string; version: string } {
    const tag = `{${this.prefix}:kb:${repositorySlug(repository)}}`;
    return { chunks: `${tag}:chunks`, version: `${tag}:version` };
  }

  async versions(repositories: string[]): Promise<Array<string | undefined>> {
    // One GET per repository (each in its own slot on a cluster); auto-pipelining sends them together.
    const values = await Promise.all(repositories.map((repository) => translateRedisError(this.redis.get(this.keys(repository).version))));
    return values.map((value) => value ?? undefined);
  }

  async load(repository: string): Promise<StoredChunk[]> {
    const fields = await translateRedisError(this.redis.hgetall(this.keys(repository).chunks));
    return Object.values(fields).map((value) => JSON.parse(value) as StoredChunk);
  }

  ids(repository: string): Promise<string[]> {
    return translateRedisError(this.redis.hkeys(this.keys(repository).chunks));
  }

  async apply(repository: string, changes: { upsert: StoredChunk[]; delete: string[] }): Promise<void> {
    const { chunks, version } = this.keys(repository);
    const transaction = this.redis.multi();
    for (let start = 0; start < changes.delete.length; start += BATCH)
      transaction.hdel(chunks, ...changes.delete.slice(start, start + BATCH));
    for (let start = 0; start < changes.upsert.length; start += BATCH) {
      transaction.hset(
        chunks,
        Object.fromEntries(changes.upsert.slice(start, start + BATCH).map((item) => [item.id, JSON.stringify(item)])),
      );
    }
    transaction.set(version, randomUUID());
    await commit(transaction);
  }

  async drop(repository: string): Promise<void> {
    const { chunks, version } = this.keys(repository);
    await commit(this.redis.multi().del(chunks).del(version));
  }
}
