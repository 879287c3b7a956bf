import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { ElicitationRequest } from '../chat.jobs.js';
import type { AnswerOutcome, ElicitationAnswer, ElicitationStore, StoredElicitation } from '../elicitation-store.port.js';

/*
 * One hash per turn, `P:chat-elicitation:{TURN}`: `q:{ID}` the question (JSON, with its step and
 * expiry), `e:{ID}` its expiry (ms), `a:{ID}` its answer (JSON), set once with HSETNX: the user's
 * answer and the worker's lapse never both count.
 */

export class RedisElicitationStore implements ElicitationStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: { prefix: string },
  ) {}

  async open(turnId: string, { request, step, expiresAt }: Omit<StoredElicitation, 'answer'>, ttlMs: number): Promise<void> {
    const key = this.key(turnId);
    const fields = { [`q:${request.id}`]: JSON.stringify({ request, step }), [`e:${request.id}`]: String(expiresAt) };
    await translateRedisError(this.redis.multi().hset(key, fields).pexpire(key, ttlMs).exec());
  }

  async list(turnId: string): Promise<StoredElicitation[]> {
    const hash = await translateRedisError(this.redis.hgetall(this.key(turnId)));
    const questions = Object.keys(hash).flatMap((field) => (field.startsWith('q:') ? [stored(hash, field.slice(2))] : []));
    return questions.sort((a, b) => a.expiresAt - b.expiresAt);
  }

  async get(turnId: string, id: string): Promise<StoredElicitation | null> {
    const [question, expires, answer] = await translateRedisError(this.redis.hmget(this.key(turnId), `q:${id}`, `e:${id}`, `a:${id}`));
    if (!question || !expires) return null;
    return stored({ [`q:${id}`]: question, [`e:${id}`]: expires, ...(answer ? { [`a:${id}`]: answer } : {}) }, id);
  }

  async answer(turnId: string, id: string, answer: ElicitationAnswer, now: number): Promise<AnswerOutcome> {
    const key = this.key(turnId);
    const expires = await translateRedisError(this.redis.hget(key, `e:${id}`));
    if (expires === null) return { outcome: 'unknown' };
    if (now >= Number(expires)) return { outcome: 'expired', expiresAt: Number(expires) };
    const set = await translateRedisError(this.redis.hsetnx(key, `a:${id}`, JSON.stringify(answer)));
    return set === 1 ? { outcome: 'recorded' } : { outcome: 'answered' };
  }

  async settle(turnId: string, id: string, lapsed: ElicitationAnswer): Promise<ElicitationAnswer | null> {
    const key = this.key(turnId);
    // Checked first: a lapse written to a hash that expired would make one without a time to live.
    if ((await translateRedisError(this.redis.hexists(key, `q:${id}`))) !== 1) return null;
    const answers = await translateRedisError(
      this.redis.multi().hsetnx(key, `a:${id}`, JSON.stringify(lapsed)).hget(key, `a:${id}`).exec(),
    );
    return JSON.parse(answers![1]![1] as string) as ElicitationAnswer;
  }

  private key(turnId: string): string {
    return `${this.options.prefix}:chat-elicitation:${turnId}`;
  }
}

function stored(hash: Record<string, string>, id: string): StoredElicitation {
  const { request, step } = JSON.parse(hash[`q:${id}`]!) as { request: ElicitationRequest; step: number };
  const answer = hash[`a:${id}`];
  return { request, step, expiresAt: Number(hash[`e:${id}`]), ...(answer ? { answer: JSON.parse(answer) as ElicitationAnswer } : {}) };
}
