import { primaries, type RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import { confirmedWrite, NO_REPLICA_WAIT, type ReplicaWait } from '../../kernel/redis/redis-replication.js';
import { redisSpan } from '../../kernel/redis/redis-spans.js';
import type {
  AppendOutcome,
  SessionStore,
  SessionDetail,
  SessionSummary,
  StoredMessage,
  StoredTurn,
  TurnToStore,
} from '../session-store.port.js';

/*
 * Layout in the session database (SESSION_REDIS_DB; database 0 on a cluster, where no other
 * key starts with `{P:chat:`), one hash tag per user so a turn's keys sit in one cluster slot:
 *   {P:chat:U}:sessions          zset  session id -> last activity (ms)
 *   {P:chat:U}:s:S:meta          hash  title, model, turns, created, updated (ms)
 *   {P:chat:U}:s:S:messages      list  message JSON, oldest first
 *   {P:chat:U}:s:S:turns         hash  turn id -> stored turn JSON (idempotency)
 *   {P:chat:U}:s:S:generation    string bumped by each clear; turns asked before it are not stored
 * Every key expires after the TTL of inactivity: a stored turn renews them all once a hundredth of
 * the TTL has passed since they were last renewed (a new session's at once), so most turns renew none.
 */

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const APPEND = `
if redis.call('HEXISTS', KEYS[4], ARGV[2]) == 1 then return 'duplicate' end
if (redis.call('GET', KEYS[5]) or '0') ~= ARGV[3] then return 'cleared' end
${NOW_MS}
local ttl = tonumber(ARGV[4])
local renew = redis.call('TTL', KEYS[2]) < ttl - math.floor(ttl / 100)
if #ARGV >= 9 and redis.call('RPUSH', KEYS[3], unpack(ARGV, 9)) > tonumber(ARGV[5]) then redis.call('LTRIM', KEYS[3], -tonumber(ARGV[5]), -1) end
redis.call('HSET', KEYS[4], ARGV[2], ARGV[6])
if redis.call('HINCRBY', KEYS[2], 'turns', 1) == 1 then
  redis.call('HSET', KEYS[2], 'created', now, 'title', ARGV[7], 'updated', now, 'model', ARGV[8])
else
  redis.call('HSET', KEYS[2], 'updated', now, 'model', ARGV[8])
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
if renew then for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ttl) end end
return 'stored'`;

/** The session's messages and this turn's stored answer, if any: one round trip. */
const LOAD = `
return {redis.call('LRANGE', KEYS[1], 0, -1), redis.call('HGET', KEYS[2], ARGV[1])}`;

const CLEAR = `
local removed = redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[5])
redis.call('EXPIRE', KEYS[5], tonumber(ARGV[2]))
return removed`;

/** Sets the title of a session that exists; answers its fields (none when it does not exist). */
const RENAME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('HSET', KEYS[1], 'title', ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

/** Removes the sessions of one user idle past the TTL, and index entries whose data expired. */
const SWEEP = `
${NOW_MS}
local removed = 0
local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  local id = members[i]
  local base = ARGV[1] .. id
  if tonumber(members[i + 1]) <= now - tonumber(ARGV[2]) or redis.call('EXISTS', base .. ':meta') == 0 then
    redis.call('DEL', base .. ':meta', base .. ':messages', base .. ':turns')
    redis.call('ZREM', KEYS[1], id)
    removed = removed + 1
  end
end
return removed`;

type ScriptedRedis = RedisClient & {
  aiopsChatLoad(messages: string, turns: string, turnId: string): Promise<[string[], string | null]>;
  aiopsChatClear(...args: string[]): Promise<number>;
  aiopsChatRename(meta: string, title: string): Promise<string[]>;
  aiopsChatSweep(key: string, base: string, ttlMs: string): Promise<number>;
};

function withScripts(redis: RedisClient): ScriptedRedis {
  if (!('aiopsChatAppend' in redis)) {
    redis.defineCommand('aiopsChatLoad', { numberOfKeys: 2, lua: LOAD });
    redis.defineCommand('aiopsChatAppend', { numberOfKeys: 5, lua: APPEND });
    redis.defineCommand('aiopsChatClear', { numberOfKeys: 5, lua: CLEAR });
    redis.defineCommand('aiopsChatRename', { numberOfKeys: 1, lua: RENAME });
    redis.defineCommand('aiopsChatSweep', { numberOfKeys: 1, lua: SWEEP });
  }
  return redis as ScriptedRedis;
}

export interface RedisSessionStoreOptions {
  prefix: string;
  ttlSeconds: number;
  /** Oldest messages beyond this are dropped from a session. */
  maxMessages?: number;
  /** Replicas a stored turn must reach before it is answered (none by default). */
  replicaWait?: ReplicaWait;
}

const DEFAULT_MAX_MESSAGES = 1_000;
const SCAN_COUNT = 200;

function iso(ms: string | undefined): string {
  return new Date(Number(ms ?? 0)).toISOString();
}

export class RedisSessionStore implements SessionStore {
  private readonly redis: ScriptedRedis;
  private readonly ttlSeconds: number;
  private readonly maxMessages: number;

  /** `redis` is a client on the session database. */
  constructor(
    redis: RedisClient,
    private readonly options: RedisSessionStoreOptions,
  ) {
    this.redis = withScripts(redis);
    this.ttlSeconds = options.ttlSeconds;
    this.maxMessages = options.maxMessages ?? DEFAULT_MAX_MESSAGES;
  }

  async generation(userId: string, sessionId: string): Promise<number> {
    return Number((await translateRedisError(this.redis.get(this.keys(userId, sessionId).generation))) ?? 0);
  }

  async load(userId: string, sessionId: string, turnId: string): Promise<{ history: StoredMessage[]; stored: StoredTurn | null }> {
    const keys = this.keys(userId, sessionId);
    const [messages, turn] = await redisSpan('aiopsChatLoad', () =>
      translateRedisError(this.redis.aiopsChatLoad(keys.messages, keys.turns, turnId)),
    );
    return { history: messages.map((raw) => JSON.parse(raw) as StoredMessage), stored: turn ? (JSON.parse(turn) as StoredTurn) : null };
  }

  append(userId: string, sessionId: string, turn: TurnToStore): Promise<AppendOutcome> {
    const keys = this.keys(userId, sessionId);
    const stored: StoredTurn = { turn_id: turn.turnId, response: turn.response, model: turn.model, created: new Date().toISOString() };
    // The stored turn, with its wait for replicas: a span of the turn's trace.
    return redisSpan('aiopsChatAppend', (span) =>
      translateRedisError(
        confirmedWrite<AppendOutcome>(
          this.redis,
          this.options.replicaWait ?? NO_REPLICA_WAIT,
          'aiopsChatAppend',
          [
            keys.sessions,
            keys.meta,
            keys.messages,
            keys.turns,
            keys.generation,
            sessionId,
            turn.turnId,
            String(turn.generation),
            String(this.ttlSeconds),
            String(this.maxMessages),
            JSON.stringify(stored),
            turn.title,
            turn.model,
            ...turn.messages.map((message) => JSON.stringify(message)),
          ],
          span,
        ),
      ),
    );
  }

  async list(userId: string, offset: number, limit: number): Promise<{ count: number; results: SessionSummary[] }> {
    const index = this.keys(userId, '').sessions;
    const [count, ids] = await translateRedisError(
      Promise.all([this.redis.zcard(index), this.redis.zrevrange(index, offset, offset + limit - 1)]),
    );
    if (ids.length === 0) return { count, results: [] };
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys(userId, id).meta);
    const metas = (await translateRedisError(pipeline.exec())) ?? [];
    const results: SessionSummary[] = [];
    ids.forEach((id, position) => {
      const meta = metas[position]?.[1] as Record<string, string> | undefined;
      if (meta?.created) results.push(this.summary(id, meta));
    });
    return { count, results };
  }

  async get(userId: string, sessionId: string): Promise<SessionDetail | null> {
    const keys = this.keys(userId, sessionId);
    const [meta, messages] = await translateRedisError(
      Promise.all([this.redis.hgetall(keys.meta), this.redis.lrange(keys.messages, 0, -1)]),
    );
    if (!meta.created) return null;
    return { ...this.summary(sessionId, meta), messages: messages.map((raw) => JSON.parse(raw) as StoredMessage) };
  }

  async rename(userId: string, sessionId: string, title: string): Promise<SessionSummary | null> {
    const fields = await translateRedisError(this.redis.aiopsChatRename(this.keys(userId, sessionId).meta, title));
    if (fields.length === 0) return null;
    const meta: Record<string, string> = {};
    for (let index = 0; index + 1 < fields.length; index += 2) meta[fields[index]!] = fields[index + 1]!;
    return this.summary(sessionId, meta);
  }

  async clear(userId: string, sessionId: string): Promise<boolean> {
    const keys = this.keys(userId, sessionId);
    const removed = await translateRedisError(
      this.redis.aiopsChatClear(keys.sessions, keys.meta, keys.messages, keys.turns, keys.generation, sessionId, String(this.ttlSeconds)),
    );
    return removed > 0;
  }

  async removeExpired(): Promise<{ sessions: number }> {
    let sessions = 0;
    // Every primary: on a cluster each holds the sessions of its slots.
    for (const node of primaries(this.redis)) {
      const stream = node.scanStream({ match: `{${this.options.prefix}:chat:*}:sessions`, count: SCAN_COUNT });
      for await (const batch of stream as AsyncIterable<string[]>) {
        for (const index of batch) {
          const base = index.slice(0, -'sessions'.length) + 's:';
          sessions += await translateRedisError(this.redis.aiopsChatSweep(index, base, String(this.ttlSeconds * 1_000)));
        }
      }
    }
    return { sessions };
  }

  private summary(id: string, meta: Record<string, string>): SessionSummary {
    return {
      id,
      title: meta.title ?? '',
      model: meta.model ?? '',
      turns: Number(meta.turns ?? 0),
      created: iso(meta.created),
      updated: iso(meta.updated),
    };
  }

  private keys(userId: string, sessionId: string) {
    const tag = `{${this.options.prefix}:chat:${userId}}`;
    const session = `${tag}:s:${sessionId}`;
    return {
      sessions: `${tag}:sessions`,
      meta: `${session}:meta`,
      messages: `${session}:messages`,
      turns: `${session}:turns`,
      generation: `${session}:generation`,
    };
  }
}
