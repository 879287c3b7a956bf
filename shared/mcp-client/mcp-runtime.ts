import type { Redis } from 'ioredis';
import { AgentLoop } from '../agent/agent-loop.js';
import { McpChatTools } from '../agent/mcp-chat-tools.js';
import type { ChatTools } from '../chat/tools.js';
import type { Config } from '../config/config.js';
import { HealthCheckService } from '../health/health-check.service.js';
import { HttpHealthChecker } from '../health/http-health-checker.adapter.js';
import { protocolChecker, StdioHealthChecker, type CredentialLookup } from '../health/health-checker.js';
import { RedisHealthStreakStore } from '../health/redis-health-streaks.adapter.js';
import type { Logger } from '../logging/logger.js';
import type { ConcurrencyLimiter } from '../providers/concurrency-limiter.js';
import type { Records } from '../records/records.js';
import { McpClientManager } from './mcp-client-manager.js';
import type { McpConnector } from './mcp-connector.js';
import { RedisToolVersionStore } from './redis-tool-versions.adapter.js';
import { SdkMcpConnector } from './sdk-connector.adapter.js';

export interface McpRuntimeOptions {
  /** A worker-role client on the records database. */
  redis: Redis;
  /** The server and status stores (health results are written straight to them). */
  collections: Records['collections'];
  keyPrefix: string;
  config: Pick<Config, 'agent' | 'mcp' | 'health'>;
  secrets: { resolve(name: string): Promise<string> };
  limiter: ConcurrencyLimiter;
  logger: Logger;
  /** Replaces the chat's tools (tests); the MCP servers' tools otherwise. */
  tools?: ChatTools;
  clientVersion: string;
}

export interface McpRuntime {
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
export function buildMcpRuntime({ redis, collections, keyPrefix, config, secrets, limiter, logger, tools, clientVersion }: McpRuntimeOptions): McpRuntime {
  const { mcpServers: servers, statuses } = collections;
  const versions = new RedisToolVersionStore(redis, keyPrefix);
  const connector: McpConnector = new SdkMcpConnector({ clientName: 'aiops', clientVersion });
  const manager = new McpClientManager({
    connector,
    credentials: secrets,
    connectionTtlMs: config.mcp.connectionTtlMs,
    connectTimeoutMs: config.mcp.connectTimeoutMs,
    logger,
  });
  const chatTools =
    tools ??
    new McpChatTools({ servers, statuses: { getByName: (name) => statuses.getByKey(name) }, versions, manager, toolTimeoutMs: config.agent.toolTimeoutMs, logger });
  const agent = new AgentLoop({
    tools: chatTools,
    limiter,
    maxSteps: config.agent.maxSteps,
    toolTimeoutMs: config.agent.toolTimeoutMs,
    resultChars: config.agent.resultChars,
  });
  const credential: CredentialLookup = async (server) => (server.auth_secret_key ? secrets.resolve(server.auth_secret_key) : undefined);
  const health = new HealthCheckService({
    servers,
    statuses,
    checker: protocolChecker({ http: new HttpHealthChecker(credential), stdio: new StdioHealthChecker(connector, credential) }),
    streaks: new RedisHealthStreakStore(redis, keyPrefix),
    versions,
    thresholds: { fall: config.health.fall, rise: config.health.rise },
    timeoutMs: config.health.timeoutMs,
  });
  return { agent, health, close: () => manager.close() };
}
