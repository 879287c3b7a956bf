import type { RequestHandler } from 'express';
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { callerContext } from '../../kernel/tracing/tracing.js';

/**
 * One span per API request, active for everything the request does, named by its method and the
 * document's route template once known (never the path with its ids). A request that carries a
 * trace (`traceparent`) starts a trace of its own linked to it, unless callers are trusted
 * (OTEL_TRUSTED_PROPAGATION: a worker's call of this service as its platform then continues the
 * worker's trace). No-op until tracing is started.
 */
export function requestTracing(trustCallers: boolean): RequestHandler {
  return (req, res, next) => {
    const { parent, links } = callerContext(req.headers, trustCallers);
    const span = trace
      .getTracer('aiops')
      .startSpan(`${req.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method }, links }, parent);
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
