import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../kernel/logging/logger.js';
import { activeTraceId } from '../../kernel/tracing/tracing.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` when it is sane), echoes it, and writes
 * one JSON log line when the response is done, with the request's trace id when it is traced.
 * Headers are never logged (Authorization lives there).
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const offered = req.get('x-request-id');
    const requestId = offered && REQUEST_ID.test(offered) ? offered : randomUUID();
    const started = process.hrtime.bigint();
    // The client's address: X-Forwarded-For only when it comes from a trusted proxy (TRUST_PROXY).
    // Read now: by the time the response is finished the socket may be gone.
    const clientIp = req.ip;
    res.locals.requestId = requestId;
    // The request's trace (requestTracing runs first): its closing line is written after the span has ended.
    const traceId = activeTraceId();
    res.locals.logger = logger.child({ request_id: requestId, ...(traceId ? { trace_id: traceId } : {}) });
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      res.locals.logger.info('request', {
        method: req.method,
        path: req.path,
        client_ip: clientIp,
        status: res.statusCode,
        duration_ms: Math.round(durationMs * 100) / 100,
        user: res.locals.principal?.username,
      });
    });
    next();
  };
}
