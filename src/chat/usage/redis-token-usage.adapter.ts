import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { LlmProvider } from '../../records/llm-model.js';
import type {
  Committed,
  HoldLimits,
  SpentToday,
  TokenHold,
  TokenUsageStore,
  UsageEntry,
  UsageQuery,
  UsageRow,
} from './token-usage.port.js';
import { daysBetween, endOfUtcDay, utcDay } from './utc-days.js';

const DAY_MS = 86_400_000;

export interface RedisTokenUsageOptions {
  prefix: string;
  /** USAGE_RETENTION_DAYS: a day's counters expire this many days after it ends. */
  retentionDays: number;
  now?: () => number;
}

/** A counter's field: what it counts and for whom, as JSON so that no name can be mistaken for another. */
type UsageField =
  | ['in' | 'out', userId: string, user: string, model: string, provider: LlmProvider]
  | ['total', userId: string]
  | ['model', userId: string, model: string];

const field = (value: UsageField): string => JSON.stringify(value);

/** A call's counters and the day's expiry, in one script: ARGV in, its count, out, its count, total, model, their count, expiry (ms). */
const ADD = `
redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], ARGV[3], ARGV[4])
local total = redis.call('HINCRBY', KEYS[1], ARGV[5], ARGV[7])
local onModel = redis.call('HINCRBY', KEYS[1], ARGV[6], ARGV[7])
redis.call('PEXPIREAT', KEYS[1], ARGV[8])
return { total, onModel }`;

/**
 * A turn's hold, checked and placed in one script, so that turns admitted at once cannot all see the
 * same budget left. KEYS: the day's counters, the user's holds (a hash of turn id → [tokens, model,
 * expiry]). ARGV: total field, model field, hold id, tokens, model, total limit, model limit, expiry, now.
 * Lapsed holds go; the turn's own last hold is not counted against it. Answers placed (0/1), spent
 * in all and on the model, held by other turns in all and on the model.
 */
const HOLD = `
local total = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local onModel = tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '0')
local now = tonumber(ARGV[9])
local expiry = tonumber(ARGV[8])
local heldTotal, heldModel = 0, 0
local holds = redis.call('HGETALL', KEYS[2])
for i = 1, #holds, 2 do
  local hold = cjson.decode(holds[i + 1])
  if hold[3] <= now then
    redis.call('HDEL', KEYS[2], holds[i])
  elseif holds[i] ~= ARGV[3] then
    heldTotal = heldTotal + hold[1]
    if hold[2] == ARGV[5] then heldModel = heldModel + hold[1] end
    if hold[3] > expiry then expiry = hold[3] end
  end
end
local limitTotal, limitModel = tonumber(ARGV[6]), tonumber(ARGV[7])
if (limitTotal > 0 and total + heldTotal >= limitTotal) or (limitModel > 0 and onModel + heldModel >= limitModel) then
  return { 0, total, onModel, heldTotal, heldModel }
end
redis.call('HSET', KEYS[2], ARGV[3], cjson.encode({ tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[8]) }))
redis.call('PEXPIREAT', KEYS[2], expiry)
return { 1, total, onModel, heldTotal, heldModel }`;

type ScriptedRedis = RedisClient & {
  aiopsUsageAdd(key: string, ...args: string[]): Promise<[number, number]>;
  aiopsUsageHold(day: string, holds: string, ...args: string[]): Promise<[number, number, number, number, number]>;
};

/**
 * Layout: one hash per UTC day, `{P:usage}:<day>`, of counters (HINCRBY): input and output tokens
 * per user, model and provider, and the totals budgets read (a user's, a user's on a model). The
 * hash expires `retentionDays` after its day ends. A call's counters move in one script. Running
 * turns' holds on a user's budgets: `{P:usage}:holds:<user id as JSON>`, expiring with the last hold.
 */
export class RedisTokenUsage implements TokenUsageStore {
  readonly retentionDays: number;
  private readonly now: () => number;
  private readonly redis: ScriptedRedis;

  constructor(
    redis: RedisClient,
    private readonly options: RedisTokenUsageOptions,
  ) {
    if (!('aiopsUsageAdd' in redis)) redis.defineCommand('aiopsUsageAdd', { numberOfKeys: 1, lua: ADD });
    if (!('aiopsUsageHold' in redis)) redis.defineCommand('aiopsUsageHold', { numberOfKeys: 2, lua: HOLD });
    this.redis = redis as ScriptedRedis;
    this.retentionDays = options.retentionDays;
    this.now = options.now ?? Date.now;
  }

  async add({ user, userId, model, provider, tokens, at }: UsageEntry): Promise<SpentToday> {
    const both = String(tokens.input_tokens + tokens.output_tokens);
    const [total, onModel] = await translateRedisError(
      this.redis.aiopsUsageAdd(
        this.key(utcDay(at)),
        field(['in', userId, user, model, provider]),
        String(tokens.input_tokens),
        field(['out', userId, user, model, provider]),
        String(tokens.output_tokens),
        field(['total', userId]),
        field(['model', userId, model]),
        both,
        String(endOfUtcDay(at.getTime()) + this.retentionDays * DAY_MS),
      ),
    );
    return { total, onModel };
  }

  async hold(
    { id, userId, model, tokens, expiresAt }: TokenHold,
    limits: HoldLimits,
    day: string,
  ): Promise<{ placed: boolean } & Committed> {
    const [placed, total, onModel, heldTotal, heldModel] = await translateRedisError(
      this.redis.aiopsUsageHold(
        this.key(day),
        this.holdsKey(userId),
        field(['total', userId]),
        field(['model', userId, model]),
        id,
        String(tokens),
        model,
        String(limits.total),
        String(limits.onModel),
        String(expiresAt),
        String(this.now()),
      ),
    );
    return { placed: placed === 1, spent: { total, onModel }, held: { total: heldTotal, onModel: heldModel } };
  }

  async release(userId: string, id: string): Promise<void> {
    await translateRedisError(this.redis.hdel(this.holdsKey(userId), id));
  }

  async spent(userId: string, day: string, model?: string): Promise<SpentToday> {
    const fields = [field(['total', userId]), ...(model === undefined ? [] : [field(['model', userId, model])])];
    const [total, onModel] = await translateRedisError(this.redis.hmget(this.key(day), ...fields));
    return { total: Number(total ?? 0), onModel: Number(onModel ?? 0) };
  }

  async list({ user, model, since, until }: UsageQuery): Promise<UsageRow[]> {
    const oldest = utcDay(this.now() - this.retentionDays * DAY_MS);
    const days = daysBetween(since < oldest ? oldest : since, until);
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(this.key(day));
    const replies = (await translateRedisError(pipeline.exec())) ?? [];
    const rows: UsageRow[] = [];
    days.forEach((day, index) => {
      const [error, hash] = replies[index] ?? [null, {}];
      if (error) throw error;
      const byRow = new Map<string, UsageRow>();
      for (const [name, value] of Object.entries(hash as Record<string, string>)) {
        const parsed = JSON.parse(name) as UsageField;
        if (parsed[0] !== 'in' && parsed[0] !== 'out') continue;
        const [direction, userId, userName, modelName, provider] = parsed;
        if (user !== undefined && user !== userName && user !== userId) continue;
        if (model !== undefined && model !== modelName) continue;
        const id = JSON.stringify([userId, userName, modelName, provider]);
        const row = byRow.get(id) ?? {
          day,
          user: userName,
          user_id: userId,
          model: modelName,
          provider,
          input_tokens: 0,
          output_tokens: 0,
        };
        row[direction === 'in' ? 'input_tokens' : 'output_tokens'] += Number(value);
        byRow.set(id, row);
      }
      rows.push(...[...byRow.values()].sort((a, b) => a.user.localeCompare(b.user) || a.model.localeCompare(b.model)));
    });
    return rows;
  }

  private key(day: string): string {
    return `{${this.options.prefix}:usage}:${day}`;
  }

  /** A user's holds; in the days' slot, so that one script reads both. */
  private holdsKey(userId: string): string {
    return `{${this.options.prefix}:usage}:holds:${JSON.stringify(userId)}`;
  }
}
