import { createHash } from 'node:crypto';
import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { SealedBox } from '../../kernel/security/sealed-box.js';
import type { McpOAuthStore, PendingSignIn } from '../mcp-oauth.port.js';

/** An entry as stored: the URL it is bound to, in clear (for `connections`), and its value sealed. */
interface Bound {
  url: string;
  sealed: string;
}

/**
 * Layout under `{P:mcp-oauth}`: `user:<user id>` hash, server id -> a user's tokens; `clients` and
 * `discovery` hashes, server id -> this service's registration and what discovery found; `state:<sha256
 * of the state>` a pending sign-in, expiring. Every value is sealed with PLATFORM_TOKEN_KEY.
 */
export class RedisMcpOAuthStore implements McpOAuthStore {
  private readonly base: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly box: SealedBox,
  ) {
    this.base = `{${prefix}:mcp-oauth}`;
  }

  tokens(serverId: string, userId: string, url: string): Promise<string | undefined> {
    return this.read(this.userKey(userId), serverId, url);
  }

  saveTokens(serverId: string, userId: string, url: string, tokens: string): Promise<void> {
    return this.write(this.userKey(userId), serverId, url, tokens);
  }

  async forgetTokens(serverId: string, userId: string): Promise<void> {
    await translateRedisError(this.redis.hdel(this.userKey(userId), serverId));
  }

  async connections(userId: string): Promise<Map<string, string>> {
    const all = await translateRedisError(this.redis.hgetall(this.userKey(userId)));
    return new Map(Object.entries(all).map(([serverId, value]) => [serverId, (JSON.parse(value) as Bound).url]));
  }

  client(serverId: string, url: string): Promise<string | undefined> {
    return this.read(`${this.base}:clients`, serverId, url);
  }

  saveClient(serverId: string, url: string, client: string): Promise<void> {
    return this.write(`${this.base}:clients`, serverId, url, client);
  }

  async forgetClient(serverId: string): Promise<void> {
    await translateRedisError(this.redis.hdel(`${this.base}:clients`, serverId));
  }

  discovery(serverId: string, url: string): Promise<string | undefined> {
    return this.read(`${this.base}:discovery`, serverId, url);
  }

  saveDiscovery(serverId: string, url: string, state: string): Promise<void> {
    return this.write(`${this.base}:discovery`, serverId, url, state);
  }

  async forgetDiscovery(serverId: string): Promise<void> {
    await translateRedisError(this.redis.hdel(`${this.base}:discovery`, serverId));
  }

  async putPending(state: string, pending: PendingSignIn, ttlMs: number): Promise<void> {
    await translateRedisError(this.redis.set(this.stateKey(state), this.box.seal(JSON.stringify(pending)), 'PX', ttlMs));
  }

  async takePending(state: string): Promise<PendingSignIn | undefined> {
    const sealed = await translateRedisError(this.redis.getdel(this.stateKey(state)));
    const plain = sealed ? this.box.open(sealed) : undefined;
    return plain ? (JSON.parse(plain) as PendingSignIn) : undefined;
  }

  private userKey(userId: string): string {
    return `${this.base}:user:${userId}`;
  }

  /** The state is a bearer of the sign-in until used: only its hash names the key. */
  private stateKey(state: string): string {
    return `${this.base}:state:${createHash('sha256').update(state).digest('base64url')}`;
  }

  private async read(key: string, field: string, url: string): Promise<string | undefined> {
    const value = await translateRedisError(this.redis.hget(key, field));
    if (!value) return undefined;
    const bound = JSON.parse(value) as Bound;
    return bound.url === url ? this.box.open(bound.sealed) : undefined;
  }

  private async write(key: string, field: string, url: string, plain: string): Promise<void> {
    await translateRedisError(this.redis.hset(key, field, JSON.stringify({ url, sealed: this.box.seal(plain) } satisfies Bound)));
  }
}
