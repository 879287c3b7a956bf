import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/JSON carries it, with the `service.name` of the process that sent it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  service: string;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT names (the exporter appends /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface ExportRequest {
  resourceSpans: { resource?: { attributes?: ReceivedSpan['attributes'] }; scopeSpans: { spans: Omit<ReceivedSpan, 'service'>[] }[] }[];
}

/** An attribute's value (OTLP/JSON wraps each in its type: stringValue, intValue, ...); int64 values arrive as numbers or strings. */
export function attribute(span: Pick<ReceivedSpan, 'attributes'>, key: string): unknown {
  return Object.values(span.attributes.find((entry) => entry.key === key)?.value ?? {})[0];
}

/** An OTLP/HTTP (JSON) receiver on loopback: keeps every span of every export. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(attribute({ attributes: resource?.attributes ?? [] }, 'service.name'));
        for (const scope of scopeSpans) spans.push(...scope.spans.map((span) => ({ ...span, service })));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
