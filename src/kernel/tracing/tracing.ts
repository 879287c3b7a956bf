import {
  context,
  isSpanContextValid,
  propagation,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

/*
 * Spans through the OpenTelemetry API only. Until tracing is started (startTracing, when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set) the API's tracer is a no-op: spans record nothing and carry
 * no trace id, and no SDK or exporter is loaded.
 */

/** A trace's context as it travels in a job's data: the W3C `traceparent` (and `tracestate`) fields. */
export type TraceCarrier = Record<string, string>;

const tracer = () => trace.getTracer('aiops');

export interface SpanOptions {
  attributes?: Attributes;
  /** The span's parent (a job's carried context); the active context otherwise. */
  parent?: Context;
  /** When it started, if before now (ms since the epoch). */
  startTime?: number;
}

/** Runs `work` in a span of its own (active for everything it calls); a throw marks the span as an error. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    { ...(options.attributes ? { attributes: options.attributes } : {}), ...(options.startTime ? { startTime: options.startTime } : {}) },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** A span that ended already: from `startTime` to now (a job's time in its queue). */
export function pastSpan(name: string, parent: Context, startTime: number, attributes: Attributes = {}): void {
  tracer().startSpan(name, { startTime, attributes }, parent).end();
}

/** The active trace's context, to carry in a job; empty when nothing is traced. */
export function traceCarrier(): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The context a carrier brought (the root context when it brought none). */
export function carriedContext(carrier: TraceCarrier | undefined): Context {
  return propagation.extract(context.active(), carrier ?? {});
}

/** The active trace's id, when something is traced. */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}
