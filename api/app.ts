import express, { type Express } from 'express';
import type { ChatService } from '../shared/chat/chat.service.js';
import { healthTracked, type HealthCheckRequests } from '../shared/health/health-requests.js';
import type { KnowledgeBase } from '../shared/knowledge/knowledge-base.service.js';
import type { Records } from '../shared/records/records.js';
import type { Logger } from '../shared/logging/logger.js';
import type { Metrics } from '../shared/metrics/metrics.js';
import './express-augment.js';
import { tokenAuthHandler } from './middleware/authenticate.js';
import { errorHandler } from './middleware/error-handler.js';
import { recordHttpDuration } from './middleware/http-metrics.js';
import { openApiValidation } from './middleware/openapi-validation.js';
import { requestContext } from './middleware/request-context.js';
import type { OpenApiDocument } from './openapi.js';
import { chatRouter } from './routes/chat.router.js';
import { kbRouter } from './routes/kb.router.js';
import { mcpHealthRouter } from './routes/mcp-health.router.js';
import { recordsRouter } from './routes/records.router.js';
import { webRouter } from './routes/web.router.js';

export interface ApiDependencies {
  records: Records;
  /** The chat (absent in apps built for records only: its operations then answer 503). */
  chat?: ChatService;
  /** The knowledge base's administration (absent: its operations answer 503). */
  knowledge?: KnowledgeBase;
  /** MCP server health checks asked for now, and first checks of new servers (absent: 503, and new servers wait for the next round). */
  health?: HealthCheckRequests;
  /** Whether the process can serve: Redis reachable, not starting or draining. */
  readiness: () => Promise<{ ready: boolean; redis: boolean; detail?: string }>;
  document: OpenApiDocument;
  logger: Logger;
  version: string;
  /** Check every response against the document too (tests turn this on). */
  validateResponses?: boolean;
  /** Prometheus metrics served at /metrics; HTTP latencies are recorded into it. */
  metrics: Metrics;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs, `loopback`); none by default. */
  trustProxy?: string[];
}

export const BODY_LIMIT = '1mb';

/** The HTTP API: thin routes over shared/ services, validated by the OpenAPI document. */
export function createApp({
  records,
  chat,
  knowledge,
  health,
  readiness,
  document,
  logger,
  version,
  validateResponses = false,
  metrics,
  trustProxy = [],
}: ApiDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxy.length > 0 ? trustProxy : false);
  app.use(requestContext(logger));
  app.use(recordHttpDuration(metrics.httpRequestDuration));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/status', async (_req, res) => {
    const state = await readiness();
    res.status(state.ready ? 200 : 503).json({
      status: state.ready ? 'ok' : 'unavailable',
      redis: state.redis ? 'ok' : 'unreachable',
      version,
      ...(state.detail ? { detail: state.detail } : {}),
    });
  });

  // The web pages load without a token (their script signs in with one), so they come before the validator.
  app.use(webRouter());

  app.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));
  app.use(
    openApiValidation(document, {
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true, allErrors: true },
      validateResponses,
      validateSecurity: { handlers: { tokenAuth: tokenAuthHandler(records.tokens) } },
      ignoreUndocumented: false,
    }),
  );

  app.get('/api/docs/', (_req, res) => {
    res.json(document);
  });
  app.use(recordsRouter('/api/plugins/ai-ops/llm-models/', records.llmModels, records.llmModels));
  app.use(mcpHealthRouter(health));
  app.use(
    recordsRouter('/api/plugins/ai-ops/mcp-servers/', records.mcpServers, health ? healthTracked(records.mcpServers, health, logger) : records.mcpServers),
  );
  app.use(recordsRouter('/api/extras/statuses/', records.statuses));
  app.use(recordsRouter('/api/extras/secrets/', records.secrets, records.secrets));
  app.use(chatRouter(chat));
  app.use(kbRouter(knowledge));

  app.use(errorHandler());
  return app;
}
