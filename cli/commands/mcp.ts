import { config as loadDotenv } from 'dotenv';
import { loadPlatformConfig, type Config } from '../../shared/config/config.js';
import { createLogger } from '../../shared/logging/logger.js';
import { serveMetrics } from '../../shared/metrics/metrics.js';
import { serveHttp } from '../../mcp/http.js';
import { buildMcpRuntime } from '../../mcp/runtime.js';
import { serveStdio } from '../../mcp/stdio.js';
import { untilSignal, VERSION } from '../runtime.js';

/**
 * `aiops mcp` (stdio) and `aiops mcp --http PORT`. The transport starts first; the endpoint index
 * builds in the background, so the MCP handshake never waits for it. Logs go to stderr. Over stdio,
 * `METRICS_PORT` serves the search latencies at `GET /metrics` (over HTTP they are on its own port).
 */
export async function runMcp(config: Config, options: { http?: number }): Promise<number> {
  loadDotenv({ quiet: true });
  const platform = loadPlatformConfig();
  const logger = createLogger({ level: config.logLevel, stream: 'stderr', defaultMeta: { role: 'mcp' } });
  const runtime = await buildMcpRuntime(platform, { dataDir: config.dataDir, logger });
  try {
    if (options.http !== undefined) {
      const http = await serveHttp(runtime.deps, VERSION, { host: config.http.host, port: options.http });
      void runtime.deps.index.start();
      await untilSignal(logger);
      await http.close();
    } else {
      const { metricsPort } = config.http;
      const exporter = runtime.deps.metrics && metricsPort !== undefined ? await serveMetrics(runtime.deps.metrics, config.http.host, metricsPort) : undefined;
      const served = serveStdio(runtime.deps, VERSION);
      void runtime.deps.index.start();
      await Promise.race([served, untilSignal(logger)]);
      await exporter?.close();
    }
  } finally {
    await runtime.close();
  }
  return 0;
}
