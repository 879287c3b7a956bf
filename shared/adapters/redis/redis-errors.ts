import { UnavailableError } from '../../errors.js';

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

/** Turns a connection failure into a domain `UnavailableError`, so edges can answer 503. */
export async function translateRedisError<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    if (isConnectionError(error)) throw new UnavailableError('the record store (Redis) is unreachable; retry shortly', { cause: error });
    throw error;
  }
}
