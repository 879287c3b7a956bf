import { UnavailableError } from '../errors.js';

/** ioredis reports a lost or refused connection in these ways; anything else is a real bug. */
function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code === 'EPIPE' ||
    /Stream isn't writeable|Connection is closed|Command timed out|LOADING|enableOfflineQueue/i.test(error.message)
  );
}

/** Messages of a reply error and, for a discarded transaction (EXECABORT), of the commands that failed in it. */
function replyMessages(error: Error): string[] {
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  return [error.message, ...(Array.isArray(previous) ? previous.map((item) => (item instanceof Error ? item.message : String(item))) : [])];
}

/** Redis refuses writes once `maxmemory` is reached (with `noeviction`, as this service runs it). */
function isFullError(error: unknown): boolean {
  return error instanceof Error && replyMessages(error).some((message) => /\bOOM command not allowed\b/.test(message));
}

/** A replica (after a failover, say) refuses writes. */
function isReadOnlyError(error: unknown): boolean {
  return error instanceof Error && replyMessages(error).some((message) => /^READONLY\b/.test(message));
}

/**
 * Turns a store that cannot serve (unreachable, full, read-only) into a domain `UnavailableError`
 * naming the cause, so edges answer 503 rather than 500.
 */
export async function translateRedisError<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    if (isConnectionError(error)) {
      throw new UnavailableError('the record store (Redis) is unreachable', {
        cause: error,
        remedy: 'Check that the Redis at REDIS_URL is running, then retry.',
      });
    }
    if (isFullError(error)) {
      throw new UnavailableError('the store (Redis) is full: it refuses writes once maxmemory is reached', {
        cause: error,
        remedy: 'Free memory or raise maxmemory (README, "Sizing Redis").',
      });
    }
    if (isReadOnlyError(error)) {
      throw new UnavailableError('the store (Redis) is a read-only replica right now', {
        cause: error,
        remedy: 'Point REDIS_URL at the primary, or retry once a failover has finished.',
      });
    }
    throw error;
  }
}
