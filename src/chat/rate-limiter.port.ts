/** Port: a per-key budget of actions per window, shared by every API instance. */
export interface RateLimiter {
  /** Takes one unit; 0 when allowed, otherwise the milliseconds until one frees up. */
  consume(key: string): Promise<number>;
}

/** The limiter used when the limit is turned off (CHAT_RATE_PER_MIN=0). */
export const UNLIMITED: RateLimiter = { consume: async () => 0 };
