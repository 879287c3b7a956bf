import type { RequestHandler } from 'express';
import type { Metrics } from '../../kernel/metrics/metrics.js';

/** Observes each request's duration, labelled by the OpenAPI route (bounded cardinality, no ids). */
export function recordHttpDuration(histogram: Metrics['httpRequestDuration']): RequestHandler {
  return (req, res, next) => {
    const stop = histogram.startTimer({ method: req.method });
    res.on('finish', () => {
      const route = req.openapi?.openApiRoute ?? (req.path === '/status' || req.path === '/metrics' ? req.path : 'unmatched');
      stop({ route, status: String(res.statusCode) });
    });
    next();
  };
}
