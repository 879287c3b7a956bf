import type { RedisClient } from '../../kernel/redis/redis-client.js';
import type { ApprovalRound, ApprovalStore, DecideOutcome, SettleOutcome } from '../approval-store.port.js';
import type { ApprovalDecision } from '../chat-tools.port.js';
import type { EarlierAttempt, PausedAgent, ToolCallOutcome } from '../agent/turn-types.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';

/*
 * One hash per paused turn, `P:chat-approval:{TURN}`: `paused` (the agent's state, JSON the
 * scripts never decode), `pending` (the proposed calls' ids, a JSON list), `expires` (ms),
 * `closed` once the turn went on, `d:{CALL}` per decision (JSON), and `c:{CALL}` per approved call
 * once it started (`started`, then its outcome as JSON). Deciding and settling are scripts, so a
 * decision and the turn going on never cross; so are the call marks, which never outlive the round.
 */

/** The most waiting turns of one user listed at once. */
const MAX_WAITING = 100;

/**
 * ARGV[1]: now (ms), then call id, decision JSON, ... Answers 'not_waiting', 'expired' and the
 * expiry (whether or not a worker has settled the round yet), 'unknown' followed by the ids, or
 * 'recorded' and 1 when complete.
 */
const DECIDE = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'closed') == 1 then return { 'not_waiting' } end
local expires = redis.call('HGET', KEYS[1], 'expires')
if tonumber(ARGV[1]) >= tonumber(expires) then return { 'expired', expires } end
local pending = cjson.decode(redis.call('HGET', KEYS[1], 'pending'))
local known = {}
for _, id in ipairs(pending) do known[id] = true end
local unknown = { 'unknown' }
for index = 2, #ARGV, 2 do if not known[ARGV[index]] then table.insert(unknown, ARGV[index]) end end
if #unknown > 1 then return unknown end
for index = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], 'd:' .. ARGV[index], ARGV[index + 1]) end
for _, id in ipairs(pending) do
  if redis.call('HEXISTS', KEYS[1], 'd:' .. id) == 0 then return { 'recorded', 0 } end
end
return { 'recorded', 1 }`;

/** ARGV[1]: now (ms), ARGV[2]: the decision of a lapsed call (JSON). Answers {'none'}, {'waiting', expires} or the hash. */
const SETTLE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return { 'none' } end
if redis.call('HEXISTS', KEYS[1], 'closed') == 0 then
  local pending = cjson.decode(redis.call('HGET', KEYS[1], 'pending'))
  local undecided = {}
  for _, id in ipairs(pending) do
    if redis.call('HEXISTS', KEYS[1], 'd:' .. id) == 0 then table.insert(undecided, id) end
  end
  local expires = redis.call('HGET', KEYS[1], 'expires')
  if #undecided > 0 and tonumber(ARGV[1]) < tonumber(expires) then return { 'waiting', expires } end
  for _, id in ipairs(undecided) do redis.call('HSET', KEYS[1], 'd:' .. id, ARGV[2]) end
  redis.call('HSET', KEYS[1], 'closed', '1')
end
return redis.call('HGETALL', KEYS[1])`;

/** Closes a round that exists (a missing one is not made, without its expiry). */
const CLOSE = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'closed', '1') end return 0`;

/** ARGV[1]: call id. Answers what the call's mark was (nil: none, and it is `started` now; nil without a round). */
const START_CALL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local earlier = redis.call('HGET', KEYS[1], 'c:' .. ARGV[1])
if earlier then return earlier end
redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], 'started')
return false`;

/** ARGV[1]: call id, ARGV[2]: its outcome (JSON). Kept only while the round is. */
const FINISH_CALL = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[2]) end
return 1`;

type ScriptedRedis = RedisClient & {
  aiopsApprovalDecide(key: string, ...args: string[]): Promise<Array<string | number>>;
  aiopsApprovalSettle(key: string, now: string, lapsed: string): Promise<string[]>;
  aiopsApprovalStartCall(key: string, callId: string): Promise<string | null>;
  aiopsApprovalFinishCall(key: string, callId: string, outcome: string): Promise<number>;
  aiopsApprovalClose(key: string): Promise<number>;
};

function roundOf(hash: Record<string, string>): ApprovalRound {
  // Own properties by construction: an assignment to `decisions['__proto__']` would set the prototype instead.
  const decisions: Record<string, ApprovalDecision> = Object.fromEntries(
    Object.entries(hash).flatMap(([field, value]) =>
      field.startsWith('d:') ? [[field.slice(2), JSON.parse(value) as ApprovalDecision]] : [],
    ),
  );
  return {
    paused: JSON.parse(hash.paused ?? '{}') as PausedAgent,
    expiresAt: Number(hash.expires),
    decisions,
    closed: hash.closed === '1',
  };
}

function pairs(flat: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) hash[flat[index]!] = flat[index + 1]!;
  return hash;
}

export class RedisApprovalStore implements ApprovalStore {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: RedisClient,
    private readonly options: { prefix: string },
  ) {
    if (!('aiopsApprovalDecide' in redis)) {
      redis.defineCommand('aiopsApprovalDecide', { numberOfKeys: 1, lua: DECIDE });
      redis.defineCommand('aiopsApprovalSettle', { numberOfKeys: 1, lua: SETTLE });
      redis.defineCommand('aiopsApprovalStartCall', { numberOfKeys: 1, lua: START_CALL });
      redis.defineCommand('aiopsApprovalFinishCall', { numberOfKeys: 1, lua: FINISH_CALL });
      redis.defineCommand('aiopsApprovalClose', { numberOfKeys: 1, lua: CLOSE });
    }
    this.redis = redis as ScriptedRedis;
  }

  async open(
    turnId: string,
    { paused, expiresAt }: Pick<ApprovalRound, 'paused' | 'expiresAt'>,
    ttlMs: number,
    userId: string,
  ): Promise<void> {
    const key = this.key(turnId);
    const owned = this.userKey(userId);
    const fields = {
      paused: JSON.stringify(paused),
      pending: JSON.stringify(paused.pending.map((call) => call.id)),
      expires: String(expiresAt),
    };
    await translateRedisError(this.redis.multi().del(key).hset(key, fields).pexpire(key, ttlMs).exec());
    // Apart: on a cluster the two keys may be in different slots. A turn listed without its round is left out by `waiting`.
    await translateRedisError(this.redis.multi().zadd(owned, expiresAt, turnId).pexpire(owned, ttlMs).exec());
  }

  async waiting(userId: string, now: number): Promise<string[]> {
    const owned = this.userKey(userId);
    // Rounds past their expiry leave the user's set here; a closed one is told apart by its round.
    const answers = await translateRedisError(
      this.redis
        .multi()
        .zremrangebyscore(owned, '-inf', `(${now}`)
        .zrevrange(owned, 0, MAX_WAITING - 1)
        .exec(),
    );
    const turnIds = (answers?.[1]?.[1] ?? []) as string[];
    const rounds = await Promise.all(turnIds.map((turnId) => this.get(turnId)));
    return turnIds.filter((_turnId, index) => rounds[index]?.closed === false);
  }

  async get(turnId: string): Promise<ApprovalRound | null> {
    const hash = await translateRedisError(this.redis.hgetall(this.key(turnId)));
    return hash.paused === undefined ? null : roundOf(hash);
  }

  async decide(turnId: string, decisions: Record<string, ApprovalDecision>, now: number): Promise<DecideOutcome> {
    const args = Object.entries(decisions).flatMap(([id, decision]) => [id, JSON.stringify(decision)]);
    const [outcome, ...rest] = await translateRedisError(this.redis.aiopsApprovalDecide(this.key(turnId), String(now), ...args));
    if (outcome === 'not_waiting') return { outcome };
    if (outcome === 'expired') return { outcome, expiresAt: Number(rest[0]) };
    if (outcome === 'unknown') return { outcome, ids: rest.map(String) };
    return { outcome: 'recorded', complete: rest[0] === 1 };
  }

  async settle(turnId: string, now: number, lapsed: ApprovalDecision): Promise<SettleOutcome> {
    const answer = await translateRedisError(this.redis.aiopsApprovalSettle(this.key(turnId), String(now), JSON.stringify(lapsed)));
    if (answer[0] === 'none') return { state: 'none' };
    if (answer[0] === 'waiting') return { state: 'waiting', expiresAt: Number(answer[1]) };
    return { state: 'settled', round: roundOf(pairs(answer)) };
  }

  async close(turnId: string): Promise<void> {
    await translateRedisError(this.redis.aiopsApprovalClose(this.key(turnId)));
  }

  async startCall(turnId: string, callId: string): Promise<EarlierAttempt> {
    const earlier = await translateRedisError(this.redis.aiopsApprovalStartCall(this.key(turnId), callId));
    if (earlier === null || earlier === 'started') return earlier;
    return JSON.parse(earlier) as ToolCallOutcome;
  }

  async finishCall(turnId: string, callId: string, outcome: ToolCallOutcome): Promise<void> {
    await translateRedisError(this.redis.aiopsApprovalFinishCall(this.key(turnId), callId, JSON.stringify(outcome)));
  }

  private key(turnId: string): string {
    return `${this.options.prefix}:chat-approval:${turnId}`;
  }

  /** The turns of one user whose round was opened, by expiry. */
  private userKey(userId: string): string {
    return `${this.options.prefix}:chat-approvals-of:${userId}`;
  }
}
