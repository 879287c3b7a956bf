import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { withDeciderName, type AuditEntry, type AuditEntryInput, type AuditLog, type AuditQuery } from './audit-log.port.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';

/** Entries read per round trip while a listing walks the log. */
const BATCH = 500;

export interface RedisAuditLogOptions {
  prefix: string;
  /** AUDIT_RETENTION_DAYS: older entries are trimmed as new ones come, and never listed. */
  retentionMs: number;
  now?: () => number;
}

/**
 * Layout: `{P:audit}:log`, a stream of `entry` (JSON) fields, its ids time-ordered. Each append
 * trims what is older than the retention (`XADD ... MINID ~`), and listings start at the same
 * bound, so an entry past its time is gone even before the next append. Nothing else writes to
 * the stream: entries are never changed or deleted by hand.
 */
export class RedisAuditLog implements AuditLog {
  private readonly key: string;
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: RedisAuditLogOptions,
  ) {
    this.key = `{${options.prefix}:audit}:log`;
    this.now = options.now ?? Date.now;
  }

  async append(entry: AuditEntryInput): Promise<void> {
    await translateRedisError(this.redis.xadd(this.key, 'MINID', '~', String(this.oldestKept()), '*', 'entry', JSON.stringify(entry)));
  }

  /** Walks the log newest first from the end down to `since` (or the retention bound), filtering as it goes. */
  async list({ user, tool, outcome, since, limit, offset }: AuditQuery): Promise<{ count: number; results: AuditEntry[] }> {
    const floor = Math.max(this.oldestKept(), since?.getTime() ?? 0);
    const matches = (entry: AuditEntryInput) =>
      (user === undefined || entry.user === user || entry.user_id === user) &&
      (tool === undefined || entry.tool === tool) &&
      (outcome === undefined || entry.outcome === outcome) &&
      Date.parse(entry.time) >= floor;
    const results: AuditEntry[] = [];
    let count = 0;
    let end = '+';
    for (;;) {
      const batch = await translateRedisError(this.redis.xrevrange(this.key, end, String(floor), 'COUNT', BATCH));
      for (const [id, fields] of batch) {
        const entry = JSON.parse(fields[1] ?? '{}') as AuditEntryInput;
        if (!matches(entry)) continue;
        if (count >= offset && results.length < limit) results.push(withDeciderName(entry, id));
        count++;
      }
      if (batch.length < BATCH) return { count, results };
      end = `(${batch.at(-1)![0]}`;
    }
  }

  private oldestKept(): number {
    return this.now() - this.options.retentionMs;
  }
}
