import { inSpan, SpanKind, type Span } from '../tracing/tracing.js';

/**
 * A Redis round trip of note (a turn's history read, the stored turn with its wait for replicas)
 * as a client span of the active trace, named by its command or script: never its keys or values.
 * Most commands have none (a record written, a slot taken): a span each would cost more than it tells.
 */
export function redisSpan<T>(operation: string, work: (span: Span) => Promise<T>): Promise<T> {
  return inSpan(
    `redis ${operation}`,
    { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'redis', 'db.operation.name': operation } },
    work,
  );
}
