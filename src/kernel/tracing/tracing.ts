import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { redactFields } from '../security/redact-secrets.js';

/*
 * Spans through the OpenTelemetry API only. Until tracing is started (startTracing, when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set) the API's tracer is a no-op: spans record nothing and carry
 * no trace id, and no SDK or exporter is loaded. Work that only feeds a span (a path's template,
 * a count) is done when `span.isRecording()`.
 */

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/** A trace's context as it travels in a job's data or a request's `_meta`: the W3C `traceparent` (and `tracestate`) fields. */
export type TraceCarrier = Record<string, string>;

const tracer = () => trace.getTracer('aiops');

export interface SpanOptions {
  attributes?: Attributes;
  /** The span's parent (a job's carried context); the active context otherwise. */
  parent?: Context;
  /** A trace of its own (a health check, an index run), whatever is active. */
  root?: boolean;
  /** Client (a call out), server (a call in), internal by default. */
  kind?: SpanKind;
  /** When it started, if before now (ms since the epoch). */
  startTime?: number;
  /** Spans of other traces this one follows from (a caller's, when not its parent). */
  links?: Link[];
}

/** Runs `work` in a span of its own (active for everything it calls); a throw marks the span as an error. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), attributes, ...spanOptions } = options;
  return tracer().startActiveSpan(name, { ...spanOptions, ...credentialsBlanked(attributes) }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span that ended already: from `startTime` to now (a job's time in its queue, a call that never ran). */
export function pastSpan(name: string, startTime: number, attributes: Attributes = {}, parent: Context = context.active()): void {
  tracer()
    .startSpan(name, { startTime, ...credentialsBlanked(attributes) }, parent)
    .end();
}

/** A span's attributes, those named like a credential blanked (a copy: callers may reuse theirs). */
function credentialsBlanked(attributes: Attributes | undefined): { attributes?: Attributes } {
  return attributes ? { attributes: redactFields({ ...attributes }) } : {};
}

/** The active trace's context, to carry in a job or a request; empty when nothing is traced. */
export function traceCarrier(): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The context a carrier brought (the active context when it brought none). */
export function carriedContext(carrier: Readonly<Record<string, unknown>> | undefined): Context {
  return propagation.extract(context.active(), carrier ?? {});
}

/**
 * Where a span of work a caller asked for starts. A trusted caller's context (another process of
 * this deployment) is the span's parent: one trace, sampled as the caller decided. Anyone else's is
 * only a link from a trace of the service's own, with its own id and its own sampling: a caller
 * neither joins its work to another user's trace nor keeps it out of the exported traces.
 */
export function callerContext(carrier: Readonly<Record<string, unknown>>, trusted: boolean): { parent: Context; links: Link[] } {
  const carried = propagation.extract(context.active(), carrier);
  if (trusted) return { parent: carried, links: [] };
  const caller = trace.getSpanContext(carried);
  return {
    parent: trace.deleteSpan(context.active()),
    links: caller && isSpanContextValid(caller) ? [{ context: caller, attributes: { 'aiops.link': 'caller' } }] : [],
  };
}

/** The active trace's id, when something is traced. */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** `version-traceid-spanid-flags` (W3C Trace Context), the trace id taken. */
const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The trace id a carrier names, read from its `traceparent` (by any process, traced or not). */
export function carriedTraceId(carrier: TraceCarrier | undefined): string | undefined {
  return TRACEPARENT.exec(carrier?.traceparent ?? '')?.[1];
}
