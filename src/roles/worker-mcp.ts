import { AgentLoop } from '../chat/agent/agent-loop.js';
import { CombinedChatTools } from '../chat/agent/combined-chat-tools.js';
import type { ChatApprovalSeal } from '../chat/agent/chat-approval-seal.js';
import { McpChatTools } from '../chat/agent/mcp-chat-tools.js';
import type { ToolCallAudit } from '../chat/audit/tool-call-audit.js';
import type { ChatTools } from '../chat/chat-tools.port.js';
import type { ConcurrencyLimiter } from '../chat/providers/concurrency-limiter.js';
import { HttpHealthChecker } from '../health/adapters/http-health-checker.adapter.js';
import { OAuthHealthChecker } from '../health/adapters/oauth-health-checker.adapter.js';
import { RedisHealthStreakStore } from '../health/adapters/redis-health-streaks.adapter.js';
import { HealthCheckService } from '../health/health-check.service.js';
import { healthChecker, ProtocolHealthChecker } from '../health/health-checker.js';
import type { CredentialLookup } from '../health/health-checker.port.js';
import type { Config } from './config.js';
import { outboundFetch } from '../kernel/http/outbound-fetch.js';
import type { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import { SdkMcpConnector, type SdkConnectorOptions } from '../mcp-client/adapters/sdk-connector.adapter.js';
import { RedisToolVersionStore } from '../mcp-client/adapters/redis-tool-versions.adapter.js';
import { McpClientManager } from '../mcp-client/mcp-client-manager.js';
import type { McpConnector } from '../mcp-client/mcp-connector.port.js';
import type { Records } from '../records/records.js';

export interface WorkerMcpOptions {
  /** A worker-role client on the records database. */
  redis: RedisClient;
  /** The server and status stores (health results are written straight to them). */
  collections: Records['collections'];
  keyPrefix: string;
  config: Pick<Config, 'agent' | 'mcp' | 'health'>;
  secrets: { resolve(name: string): Promise<string> };
  limiter: ConcurrencyLimiter;
  logger: Logger;
  /** Where servers whose address no superuser set may connect (OUTBOUND_ALLOW). */
  outbound: OutboundPolicy;
  /** Replaces the chat's tools (tests); the MCP servers' tools otherwise. */
  tools?: ChatTools;
  /** Offered before the MCP servers' tools, under their own names (the built-in platform tools). */
  builtinTools?: ChatTools & { readonly names: ReadonlySet<string> };
  clientVersion: string;
  /** The OAuth client of per-user OAuth servers (absent: their users cannot be reached). */
  oauth?: SdkConnectorOptions['oauth'];
  /** Where every tool call of a chat turn is recorded. */
  audit?: ToolCallAudit;
  /** Seals the user's approval of a write for this service's own tool server (PLATFORM_TOKEN_KEY set). */
  approvals?: ChatApprovalSeal;
}

export interface WorkerMcp {
  agent: AgentLoop;
  health: HealthCheckService;
  close(): Promise<void>;
}

/**
 * What a worker needs for MCP servers, built once per process: one client manager (sessions and
 * tool lists shared by every chat turn), the agent loop over the Healthy servers' tools, and the
 * health-check service. Server records are read straight from their collection (health results
 * are written with its compare-and-swap).
 */
export function buildWorkerMcp({
  redis,
  collections,
  keyPrefix,
  config,
  secrets,
  limiter,
  logger,
  outbound,
  tools,
  builtinTools,
  clientVersion,
  oauth,
  audit,
  approvals,
}: WorkerMcpOptions): WorkerMcp {
  const { mcpServers: servers, statuses } = collections;
  const versions = new RedisToolVersionStore(redis, keyPrefix);
  const connector: McpConnector = new SdkMcpConnector({
    clientName: 'aiops',
    clientVersion,
    outbound: outboundFetch(outbound),
    ...(oauth ? { oauth } : {}),
  });
  const manager = new McpClientManager({
    connector,
    credentials: secrets,
    connectionTtlMs: config.mcp.connectionTtlMs,
    connectTimeoutMs: config.mcp.connectTimeoutMs,
    logger,
  });
  const serverTools = new McpChatTools({
    servers,
    statuses: { getByName: (name) => statuses.getByKey(name) },
    versions,
    manager,
    toolTimeoutMs: config.agent.toolTimeoutMs,
    toolMaxMs: config.agent.toolMaxMs,
    logger,
    ...(builtinTools ? { reservedNames: builtinTools.names } : {}),
    ...(approvals ? { approvals } : {}),
  });
  const chatTools = tools ?? (builtinTools ? new CombinedChatTools(builtinTools, serverTools) : serverTools);
  const agent = new AgentLoop({
    tools: chatTools,
    limiter,
    maxSteps: config.agent.maxSteps,
    toolTimeoutMs: config.agent.toolTimeoutMs,
    toolMaxMs: config.agent.toolMaxMs,
    resultChars: config.agent.resultChars,
    answerChars: config.agent.answerChars,
    ...(audit ? { audit } : {}),
  });
  const credential: CredentialLookup = async (server) => (server.auth_secret_key ? secrets.resolve(server.auth_secret_key) : undefined);
  const health = new HealthCheckService({
    servers,
    statuses,
    checker: healthChecker({
      http: new HttpHealthChecker(credential, outbound),
      protocol: new ProtocolHealthChecker(connector, credential),
      oauth: new OAuthHealthChecker(outboundFetch(outbound)),
    }),
    streaks: new RedisHealthStreakStore(redis, keyPrefix),
    versions,
    thresholds: { fall: config.health.fall, rise: config.health.rise },
    timeoutMs: config.health.timeoutMs,
  });
  return { agent, health, close: () => manager.close() };
}
