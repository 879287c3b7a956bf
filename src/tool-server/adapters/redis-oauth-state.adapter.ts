import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { OAuthState, OAuthStateKind } from '../oauth-state.port.js';

/** Layout under `{P:toolserver-oauth}`: `<kind>:<id>` strings holding JSON, with the entry's expiry. */
export class RedisOAuthState implements OAuthState {
  private readonly base: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.base = `{${prefix}:toolserver-oauth}`;
  }

  async put(kind: OAuthStateKind, id: string, value: unknown, ttlMs?: number): Promise<void> {
    const json = JSON.stringify(value);
    await translateRedisError(
      ttlMs === undefined ? this.redis.set(this.key(kind, id), json) : this.redis.set(this.key(kind, id), json, 'PX', ttlMs),
    );
  }

  async get(kind: OAuthStateKind, id: string): Promise<unknown> {
    const json = await translateRedisError(this.redis.get(this.key(kind, id)));
    return json ? (JSON.parse(json) as unknown) : undefined;
  }

  async take(kind: OAuthStateKind, id: string): Promise<unknown> {
    const json = await translateRedisError(this.redis.getdel(this.key(kind, id)));
    return json ? (JSON.parse(json) as unknown) : undefined;
  }

  private key(kind: OAuthStateKind, id: string): string {
    return `${this.base}:${kind}:${id}`;
  }
}
