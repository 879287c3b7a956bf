import { duplicateClient, type RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { HostAnswer, HostSession, HostState } from '../host-state.port.js';

/** Hands an answer over only to the caller whose call waits for it, once: the first answer wins. */
const DELIVER = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`;
/** How long a delivered answer waits to be taken (its call takes it at once unless it ended). */
const ANSWER_KEPT_MS = 60_000;

/**
 * A connection of its own for one BLPOP: a request client gives up on a command after a moment and
 * refuses commands before it is connected, which a wait of minutes cannot live with.
 */
function blockingConnection(redis: RedisClient): RedisClient {
  const connection = duplicateClient(redis, {
    commandTimeout: undefined,
    enableOfflineQueue: true,
    enableAutoPipelining: false,
    maxRetriesPerRequest: null,
  });
  connection.on('error', () => {});
  return connection;
}

type Delivering = RedisClient & {
  aiopsHostAnswer(callerKey: string, answerKey: string, caller: string, answer: string, keptMs: number): Promise<number>;
};

/**
 * Layout (prefix P): `{P:toolserver}:session:<id>` a host session (JSON, expiring after its last
 * use); `{P:toolserver}:used:<id>` a used confirm token, kept until it would have expired anyway;
 * `{P:toolserver:ask:<id>}:caller` who waits for the answer to a request sent to a host, and
 * `{P:toolserver:ask:<id>}:answer` a list the answer is pushed to, taken with BLPOP by the instance
 * holding the call (on its own connection: BLPOP blocks it).
 */
export class RedisHostState implements HostState {
  private readonly redis: Delivering;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
  ) {
    redis.defineCommand('aiopsHostAnswer', { numberOfKeys: 2, lua: DELIVER });
    this.redis = redis as Delivering;
  }

  async openSession(id: string, session: HostSession, ttlMs: number): Promise<void> {
    await translateRedisError(this.redis.set(this.sessionKey(id), JSON.stringify(session), 'PX', ttlMs));
  }

  async session(id: string, caller: string): Promise<HostSession | undefined> {
    const stored = await translateRedisError(this.redis.get(this.sessionKey(id)));
    const session = stored ? (JSON.parse(stored) as HostSession) : undefined;
    return session?.caller === caller ? session : undefined;
  }

  async claimToken(id: string, ttlMs: number): Promise<boolean> {
    return (await translateRedisError(this.redis.set(`{${this.prefix}:toolserver}:used:${id}`, '1', 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async expectAnswer(id: string, caller: string, ttlMs: number): Promise<void> {
    await translateRedisError(this.redis.set(this.askKey(id, 'caller'), caller, 'PX', ttlMs));
  }

  async awaitAnswer(id: string, ttlMs: number, signal: AbortSignal): Promise<HostAnswer | undefined> {
    const connection = blockingConnection(this.redis);
    const stop = () => connection.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const taken = await connection.blpop(this.askKey(id, 'answer'), ttlMs / 1_000);
      return taken ? (JSON.parse(taken[1]) as HostAnswer) : undefined;
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    } finally {
      signal.removeEventListener('abort', stop);
      await this.redis.del(this.askKey(id, 'caller')).catch(() => 0);
      connection.disconnect();
    }
  }

  async deliverAnswer(answer: HostAnswer, caller: string): Promise<boolean> {
    const id = String(answer.id);
    const delivered = await translateRedisError(
      this.redis.aiopsHostAnswer(this.askKey(id, 'caller'), this.askKey(id, 'answer'), caller, JSON.stringify(answer), ANSWER_KEPT_MS),
    );
    return delivered === 1;
  }

  private sessionKey(id: string): string {
    return `{${this.prefix}:toolserver}:session:${id}`;
  }

  private askKey(id: string, part: 'caller' | 'answer'): string {
    return `{${this.prefix}:toolserver:ask:${id}}:${part}`;
  }
}
