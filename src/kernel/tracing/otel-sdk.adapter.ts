import { context, propagation, trace } from '@opentelemetry/api';

/** Tracing as started: `shutdown` exports what is left and stops. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK, exporting spans with OTLP over HTTP (JSON) to the endpoint the
 * standard OTEL_EXPORTER_OTLP_* settings name. The SDK is imported here, only when tracing is on,
 * so a process without OTEL_EXPORTER_OTLP_ENDPOINT loads none of it. The SDK's trace package reads
 * no settings of its own, so the standard ones it would are read here: OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER (and _ARG), OTEL_BSP_*.
 */
export async function startTracing(serviceName: string): Promise<Tracing> {
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes, detectResources, envDetector }, { AsyncLocalStorageContextManager }, core] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
    ]);
  const setting = core.getNumberFromEnv;
  const ratio = setting('OTEL_TRACES_SAMPLER_ARG') ?? 1;
  const samplers = {
    always_on: () => new sdk.AlwaysOnSampler(),
    always_off: () => new sdk.AlwaysOffSampler(),
    traceidratio: () => new sdk.TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    parentbased_always_off: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() }),
    parentbased_traceidratio: () => new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) }),
  };
  // An unknown name (or none) is the default: every trace, unless its caller's says it is not sampled.
  const named = core.getStringFromEnv('OTEL_TRACES_SAMPLER') ?? '';
  const sampler = Object.hasOwn(samplers, named) ? (named as keyof typeof samplers) : 'parentbased_always_on';
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }).merge(detectResources({ detectors: [envDetector] })),
    sampler: samplers[sampler](),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: setting('OTEL_BSP_SCHEDULE_DELAY'),
        exportTimeoutMillis: setting('OTEL_BSP_EXPORT_TIMEOUT'),
        maxQueueSize: setting('OTEL_BSP_MAX_QUEUE_SIZE'),
        maxExportBatchSize: setting('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
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
