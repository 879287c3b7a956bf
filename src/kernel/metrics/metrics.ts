import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { listenFailure } from '../listen-failure.js';

/** Seconds buckets for request, job, provider and search latencies (1 ms .. 2 min). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Every metric this service exports, defined once. Modules receive the piece they observe (a
 * histogram, a counter) rather than a global; gauges that are read from elsewhere (queue depth,
 * MCP health) are filled at scrape time by collectors registered with `onScrape`.
 */
export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  queueDepth: Gauge<'queue' | 'state'>;
  jobDuration: Histogram<'queue' | 'outcome'>;
  jobFailures: Counter<'queue' | 'reason'>;
  providerLatency: Histogram<'provider' | 'outcome'>;
  providerErrors: Counter<'provider' | 'kind'>;
  /** Tokens the providers reported, by model name, provider kind and direction (input, output). */
  providerTokens: Counter<'model' | 'provider' | 'direction'>;
  mcpServerUp: Gauge<'server' | 'status'>;
  redisMemory: Gauge<'kind'>;
  searchLatency: Histogram<'index'>;
  /** Refreshes a scrape-time gauge just before it is read (errors are swallowed: a scrape must not fail). */
  onScrape(gauge: ScrapedGauge, collect: () => Promise<void>): void;
}

export type ScrapedGauge = 'queueDepth' | 'mcpServerUp' | 'redisMemory';

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'aiops_' });
  const collectors: Record<ScrapedGauge, (() => Promise<void>)[]> = { queueDepth: [], mcpServerUp: [], redisMemory: [] };
  const options = { registers: [registry] };
  // prom-client calls a gauge's `collect` when it is scraped; each runs the collectors registered for it.
  const scraped = (gauge: ScrapedGauge) => ({
    async collect() {
      await Promise.all(collectors[gauge].map((collect) => collect().catch(() => undefined)));
    },
  });
  const metrics: Metrics = {
    registry,
    httpRequestDuration: new Histogram({
      name: 'aiops_http_request_duration_seconds',
      help: 'HTTP request duration by method, OpenAPI route and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      ...options,
    }),
    queueDepth: new Gauge({
      name: 'aiops_queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed).',
      labelNames: ['queue', 'state'],
      ...options,
      ...scraped('queueDepth'),
    }),
    jobDuration: new Histogram({
      name: 'aiops_job_duration_seconds',
      help: 'Job processing time by queue and outcome.',
      labelNames: ['queue', 'outcome'],
      buckets: LATENCY_BUCKETS,
      ...options,
    }),
    jobFailures: new Counter({
      name: 'aiops_job_failures_total',
      help: 'Failed job attempts by queue and reason.',
      labelNames: ['queue', 'reason'],
      ...options,
    }),
    providerLatency: new Histogram({
      name: 'aiops_provider_request_duration_seconds',
      help: 'LLM provider call duration by provider and outcome.',
      labelNames: ['provider', 'outcome'],
      buckets: LATENCY_BUCKETS,
      ...options,
    }),
    providerErrors: new Counter({
      name: 'aiops_provider_errors_total',
      help: 'LLM provider errors by provider and kind (auth, rate_limit, timeout, upstream, ...).',
      labelNames: ['provider', 'kind'],
      ...options,
    }),
    providerTokens: new Counter({
      name: 'aiops_provider_tokens_total',
      help: 'Tokens LLM providers reported by model, provider kind and direction (input, output).',
      labelNames: ['model', 'provider', 'direction'],
      ...options,
    }),
    mcpServerUp: new Gauge({
      name: 'aiops_mcp_server_up',
      help: '1 when the MCP server is Healthy, 0 otherwise; the status label carries its status name.',
      labelNames: ['server', 'status'],
      ...options,
      ...scraped('mcpServerUp'),
    }),
    redisMemory: new Gauge({
      name: 'aiops_redis_memory_bytes',
      help: 'Redis memory: kind=used (used_memory) and kind=max (maxmemory, 0 without a limit); writes are refused once used reaches max.',
      labelNames: ['kind'],
      ...options,
      ...scraped('redisMemory'),
    }),
    searchLatency: new Histogram({
      name: 'aiops_search_duration_seconds',
      help: 'Search latency by index (endpoints, knowledge base).',
      labelNames: ['index'],
      buckets: LATENCY_BUCKETS,
      ...options,
    }),
    onScrape(gauge, collect) {
      collectors[gauge].push(collect);
    },
  };
  return metrics;
}

/**
 * `GET /metrics` on its own port, for roles without an HTTP API of their own (workers, the stdio
 * tool server). Resolves once listening; `close` stops it.
 */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      // A failing collector must not end the process with an unhandled rejection.
      () => res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"Metrics could not be collected."}'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenFailure(error, 'the metrics exporter (METRICS_PORT)', host, port)));
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
