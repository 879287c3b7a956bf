import express, { type Express } from 'express';
import { refuseDeepJson } from '../kernel/security/json-depth.js';
import type { AuditLog } from '../chat/audit/audit-log.port.js';
import { healthTracked, type HealthCheckRequests } from '../health/health-requests.js';
import type { KnowledgeBase } from '../knowledge/knowledge-base.service.js';
import type { Records } from '../records/records.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { Metrics } from '../kernel/metrics/metrics.js';
import '../api/express-augment.js';
import '../records/http/express-augment.js';
import { DEFAULT_MAX_PAGE_SIZE } from '../kernel/config/config.js';
import { apiRootRouter, type StatusReadings } from '../api/api-root.router.js';
import { apiVersion } from '../api/middleware/api-version.js';
import { errorHandler } from '../api/middleware/error-handler.js';
import { recordHttpDuration } from '../api/middleware/http-metrics.js';
import { discardUnreadBody } from '../api/middleware/unread-body.js';
import { noSniff } from '../api/middleware/no-sniff.js';
import { pageBounds } from '../api/middleware/page-bounds.js';
import { linkOrigins, type LinkOrigins } from '../api/list-page.js';
import { openApiValidation } from '../api/middleware/openapi-validation.js';
import { tokenAuth } from '../records/http/authenticate.js';
import { requestContext } from '../api/middleware/request-context.js';
import { requestTracing } from '../api/middleware/request-tracing.js';
import { requiredBody } from '../api/middleware/required-body.js';
import { apiVersionOf, type OpenApiDocument } from '../api/openapi.js';
import { auditLogRouter } from '../chat/http/audit-log.router.js';
import { chatRouter, type ChatServices } from '../chat/http/chat.router.js';
import { usageRouter } from '../chat/http/usage.router.js';
import type { UsageReportService } from '../chat/usage/usage-report.service.js';
import { platformTokenRouter } from '../platform/http/platform-token.router.js';
import type { PersonalTokenStore } from '../platform/personal-tokens.port.js';
import { kbRouter } from '../knowledge/http/kb.router.js';
import { mcpHealthRouter } from '../health/http/mcp-health.router.js';
import { mcpConnectRouter } from '../chat/http/mcp-connect.router.js';
import type { McpConnectionsService } from '../mcp-client/mcp-connections.service.js';
import { recordKindsRouter } from '../records/http/records.router.js';
import { platformRouter } from '../platform/http/platform.router.js';
import type { PlatformCheck } from '../platform/platform-check.js';
import { tokensRouter } from '../records/http/tokens.router.js';
import { webRouter } from '../api/web.router.js';

export interface ApiDependencies {
  records: Records;
  /** The chat (absent in apps built for records only: its operations then answer 503). */
  chat?: ChatServices;
  /** The knowledge base's administration (absent: its operations answer 503). */
  knowledge?: KnowledgeBase;
  /** MCP server health checks asked for now, and first checks of new servers (absent: 503, and new servers wait for the next round). */
  health?: HealthCheckRequests;
  /** The audit log of the agent's tool calls (absent: its listing answers 503). */
  auditLog?: AuditLog;
  /** Token usage per day, user and model (absent: its listing answers 503). */
  usage?: UsageReportService;
  /** Users' own accounts on OAuth MCP servers (absent without PLATFORM_TOKEN_KEY and PUBLIC_URL: connecting answers 409). */
  mcpConnections?: McpConnectionsService;
  /** Users' own tokens for an external platform (absent without PLATFORM_TOKEN_KEY: its operations answer 409). */
  personalTokens?: PersonalTokenStore;
  /** Checks the platform the agent acts on (absent: its operation answers 503). */
  platformCheck?: () => Promise<PlatformCheck>;
  /** Whether the process can serve: Redis reachable, not starting or draining. */
  readiness: () => Promise<Readiness>;
  document: OpenApiDocument;
  logger: Logger;
  version: string;
  /** Check every response against the document too (tests turn this on). */
  validateResponses?: boolean;
  /** Prometheus metrics served at /metrics; HTTP latencies are recorded into it. */
  metrics: Metrics;
  /** OTEL_TRUSTED_PROPAGATION: a request's `traceparent` is its span's parent, not only a link (off by default). */
  trustedPropagation?: boolean;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs, `loopback`); none by default. */
  trustProxy?: string[];
  /** MAX_PAGE_SIZE: the most records a page of a records list holds and a bulk write takes. */
  maxPageSize?: number;
  /** Where answers' links may point (PUBLIC_URL, allowed hosts); by default loopback only. */
  links?: LinkOrigins;
  /** What `/api/status/` says of Redis's version and of the workers of each queue (absent: unknown, none). */
  statusReadings?: () => Promise<StatusReadings>;
}

/** What /status answers: ready (200) or not (503), Redis reachable, full (reads served, writes refused) or not. */
export interface Readiness {
  ready: boolean;
  redis: 'ok' | 'full' | 'read-only' | 'unreachable';
  detail?: string;
}

export const BODY_LIMIT = '1mb';

/** The HTTP API: thin routes over the components' services, validated by the OpenAPI document. */
export function createApp({
  records,
  chat,
  knowledge,
  health,
  auditLog,
  usage,
  personalTokens,
  platformCheck,
  mcpConnections,
  readiness,
  document,
  logger,
  version,
  validateResponses = false,
  metrics,
  trustProxy = [],
  trustedPropagation = false,
  links = linkOrigins(undefined, '127.0.0.1', []),
  maxPageSize = DEFAULT_MAX_PAGE_SIZE,
  statusReadings = async () => ({ redisVersion: null, workers: {} }),
}: ApiDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxy.length > 0 ? trustProxy : false);
  app.use(noSniff);
  app.use((_req, res, next) => {
    res.locals.linkOrigins = links;
    next();
  });
  app.use(requestTracing(trustedPropagation));
  app.use(requestContext(logger));
  app.use(discardUnreadBody(BODY_LIMIT));
  app.use(recordHttpDuration(metrics.httpRequestDuration));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/status', async (_req, res) => {
    const state = await readiness();
    res.status(state.ready ? 200 : 503).json({
      status: state.ready ? 'ok' : 'unavailable',
      redis: state.redis,
      version,
      ...(state.detail ? { detail: state.detail } : {}),
    });
  });

  app.use(apiVersion(apiVersionOf(document)));
  // The web pages load without a token (their script signs in with one), so they come before the validator.
  app.use(webRouter());

  const body = requiredBody();
  app.use(
    express.json({
      limit: BODY_LIMIT,
      type: ['application/json', 'application/*+json'],
      verify: (req, res, raw) => {
        body.noteEmpty(req, res, raw);
        refuseDeepJson(req, res, raw);
      },
    }),
  );
  app.use((_req, res, next) => {
    res.locals.tokens = records.tokens;
    next();
  });
  app.use(openApiValidation(document, { validateResponses, tokenAuth }));
  app.use(pageBounds);
  app.use(body.requireBody);

  // The chat's routes first: a turn's request, the most frequent, need not be matched against every other route.
  app.use(chatRouter(chat));
  app.get('/api/docs/', (_req, res) => {
    res.json(document);
  });
  app.use(apiRootRouter(document, { version, redis: async () => (await readiness()).redis, readings: statusReadings }));
  const recordsApi = { document, maxPageSize };
  // Before the records' routes: it adds each listed MCP server's `connected` for the caller to their answer.
  app.use(mcpConnectRouter(mcpConnections));
  app.use(mcpHealthRouter(health));
  app.use(recordKindsRouter(records, recordsApi, health ? { mcpServers: healthTracked(records.mcpServers, health, logger) } : {}));
  app.use(tokensRouter(records.tokens, recordsApi));
  app.use(kbRouter(knowledge));
  app.use(auditLogRouter(auditLog));
  app.use(usageRouter(usage));
  app.use(platformTokenRouter(personalTokens));
  app.use(platformRouter(platformCheck));

  app.use(errorHandler());
  return app;
}
