import http from 'node:http';
import { listenFailure } from '../kernel/listen-failure.js';
import type { Logger } from '../kernel/logging/logger.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  /** How long /status answers 503 (see `draining`) before new connections stop. */
  drainDelayMs: number;
  /** How long in-flight requests may take after that before their connections are cut. */
  shutdownTimeoutMs: number;
  logger: Logger;
}

export interface HttpServer {
  server: http.Server;
  /** The bound port (useful with port 0). */
  port: number;
  /** True from the start of `close`: the app's /status answers 503 meanwhile. */
  readonly draining: boolean;
  /**
   * Drains: waits `drainDelayMs` (the balancer sees /status fail), stops accepting connections,
   * runs `release` (ends event streams and answers waiting requests), then waits for the rest.
   */
  close(release: () => Promise<void>): Promise<void>;
}

/** Serves `app` on `host:port`, with the drain sequence a load balancer needs on SIGTERM. */
export async function listen(
  app: http.RequestListener,
  { host, port, drainDelayMs, shutdownTimeoutMs, logger }: HttpServerOptions,
): Promise<HttpServer> {
  let draining = false;
  const server = http.createServer((req, res) => {
    // While draining, answer and close: a kept-alive connection would keep bringing requests here.
    if (draining) res.shouldKeepAlive = false;
    app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenFailure(error, 'the API', host, port)));
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  logger.info('api listening', { host, port: bound });
  return {
    server,
    port: bound,
    get draining() {
      return draining;
    },
    async close(release) {
      draining = true;
      logger.info('api draining', { drain_delay_ms: drainDelayMs });
      await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
      await release();
      await closed;
      clearTimeout(cut);
      logger.info('api stopped');
    },
  };
}
