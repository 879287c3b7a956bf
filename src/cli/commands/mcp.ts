import type { Config } from '../../roles/config.js';
import { createLogger } from '../../kernel/logging/logger.js';
import { serveMetrics } from '../../kernel/metrics/metrics.js';
import { serveHttp } from '../../tool-server/http.js';
import { serveStdio } from '../../tool-server/stdio.js';
import { locateKnowledgeBase } from '../../roles/knowledge.js';
import { buildPlatformToolServer, openToolServerWrites, toolServerCallers } from '../../roles/mcp.js';
import { untilSignal, VERSION, warnOnOldNode } from '../process.js';

/**
 * `aiops mcp` (stdio) and `aiops mcp --http PORT`. The knowledge base is the one `aiops kb` works on
 * (see locateKnowledgeBase), said on stderr. The transport starts first; the endpoint index
 * builds in the background, so the MCP handshake never waits for it. Logs go to stderr. Over stdio,
 * `METRICS_PORT` serves the search latencies at `GET /metrics` (over HTTP they are on its own port).
 */
export async function runMcp(config: Config, options: { http?: number }): Promise<number> {
  const logger = createLogger({ level: config.logLevel, stream: 'stderr', defaultMeta: { role: 'mcp' } });
  warnOnOldNode(logger);
  const stopped = untilSignal(logger, config.http);
  // The knowledge base is found as `aiops kb` finds it, and said where; over HTTP, API tokens are checked in that same Redis.
  const location = await locateKnowledgeBase(config);
  // Over HTTP, who may call is settled before anything else starts.
  const auth = options.http === undefined ? undefined : toolServerCallers(location.config, logger);
  if (location.shared) logger.info(`knowledge base: ${location.description}`);
  else logger.warn(`knowledge base: ${location.description}`);
  const runtime = await buildPlatformToolServer(location.config, logger);
  const writes = openToolServerWrites(config, runtime.deps, logger);
  try {
    if (auth && options.http !== undefined) {
      // Listening is said once a caller can be checked: the first call would otherwise meet a Redis still connecting.
      await auth.ready;
      const { allowedHosts, allowedOrigins } = config.toolServer;
      const http = await serveHttp(runtime.deps, VERSION, {
        host: config.http.host,
        port: options.http,
        callers: auth.callers,
        ...(auth.delegate ? { delegate: auth.delegate } : {}),
        allowedOrigins,
        trustedPropagation: config.tracing.trustedPropagation,
        trustProxy: config.http.trustProxy,
        ...(auth.oauth ? { oauth: auth.oauth } : {}),
        writes,
        ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
      });
      void runtime.deps.index.start();
      await stopped;
      await http.close();
    } else {
      const { metricsPort } = config.http;
      const exporter =
        runtime.deps.metrics && metricsPort !== undefined
          ? await serveMetrics(runtime.deps.metrics, config.http.host, metricsPort)
          : undefined;
      const served = serveStdio(runtime.deps, VERSION, writes.gate);
      void runtime.deps.index.start();
      await Promise.race([served, stopped]);
      await exporter?.close();
    }
  } finally {
    await runtime.close();
    await writes.close();
    await auth?.close();
  }
  return 0;
}
