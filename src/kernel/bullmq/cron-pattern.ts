import { defaultRepeatStrategy } from 'bullmq';

/**
 * A cron pattern as BullMQ's job schedulers read it, in five fields (minute hour day month
 * weekday) or six (seconds first), with a next time to run. Fewer fields BullMQ would fill in
 * itself (`*` alone runs every second), so they are refused.
 */
export function isCronPattern(pattern: string): boolean {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return false;
  try {
    return defaultRepeatStrategy(Date.now(), { pattern }) !== undefined;
  } catch {
    return false;
  }
}
