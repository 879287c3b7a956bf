import { context, propagation, trace } from '@opentelemetry/api';

/** Tracing as started: `shutdown` exports what is left and stops. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK, exporting spans with OTLP over HTTP (JSON) to the endpoint the
 * standard OTEL_EXPORTER_OTLP_* settings name. The SDK is imported here, only when tracing is on,
 * so a process without OTEL_EXPORTER_OTLP_ENDPOINT loads none of it.
 */
export async function startTracing(serviceName: string): Promise<Tracing> {
  const [
    { TracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
