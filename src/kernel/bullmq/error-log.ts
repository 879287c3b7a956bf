import type { Logger } from '../logging/logger.js';

/** How long one kind of error of one BullMQ object is logged only once. */
const REPEATED_ERROR_QUIET_MS = 60_000;

/**
 * What a lost Redis makes of every reconnect attempt, in whichever words (refused, reset, closed,
 * timed out): one kind of error, so an outage is one line per object and minute, not one per retry.
 */
const CONNECTION_FAILURE =
  /\b(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|ENOTFOUND|EAI_AGAIN)\b|Connection is closed|Stream isn't writeable/;

/**
 * An error listener for a BullMQ worker, queue or event reader: logs `message` with `meta` and the
 * error's message, each kind of error at most once per `quietMs`.
 */
export function quietErrorLog(
  logger: Logger,
  message: string,
  meta: Record<string, unknown>,
  { quietMs = REPEATED_ERROR_QUIET_MS, now = Date.now } = {},
): (error: Error) => void {
  const loggedAt = new Map<string, number>();
  return (error) => {
    const at = now();
    for (const [kind, when] of loggedAt) if (at - when >= quietMs) loggedAt.delete(kind);
    const kind = CONNECTION_FAILURE.test(error.message) ? 'connection' : error.message;
    if (loggedAt.has(kind)) return;
    loggedAt.set(kind, at);
    logger.warn(message, { ...meta, error: error.message });
  };
}
