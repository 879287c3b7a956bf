import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';

/**
 * Methods none of whose operations takes a body (test/api/openapi-document.test.ts holds the
 * document to it). DELETE takes one on record lists (a bulk delete), so its body goes to the parser.
 */
export const BODILESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Reads to its end, and drops, a body sent with a method that takes none, before the request goes
 * on. Answered while its body is still coming, a request whose body and answer are both larger
 * than the socket's buffers never completes: the client, still writing, never reads the answer.
 * Past `limit` (bytes, or '1mb') it is a 413, as for any body.
 */
export function discardUnreadBody(limit: number | string): RequestHandler {
  return (req, _res, next) => {
    if (!BODILESS_METHODS.has(req.method) || req.complete) return next();
    getRawBody(req, { limit }).then(() => next(), next);
  };
}
