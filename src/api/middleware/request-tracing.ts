import type { RequestHandler } from 'express';
import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';

/**
 * One span per API request, active for everything the request does, named by its method and the
 * document's route template once known (never the path with its ids). A request that carries a
 * trace (`traceparent`: a worker's call of this service as its platform) continues it. No-op until
 * tracing is started.
 */
export function requestTracing(): RequestHandler {
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = trace
      .getTracer('aiops')
      .startSpan(`${req.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
    res.on('finish', () => {
      const route = req.openapi?.openApiRoute;
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
