/**
 * The client the official MCP conformance suite launches for each client scenario
 * (`<command> <server-url>`, the scenario in MCP_CONFORMANCE_SCENARIO, its context in
 * MCP_CONFORMANCE_CONTEXT): the agent's own connector and OAuth storage (Redis at
 * AIOPS_CONFORMANCE_REDIS_URL, sealed), driven as the service drives them. A user who must sign in
 * is sent through the authorization URL as a browser would be (the suite's authorization server
 * approves at once) and comes back through McpConnectionsService.finish, the callback's own code.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../src/roles/config.js';
import { outboundFetch } from '../../../src/kernel/http/outbound-fetch.js';
import { OutboundPolicy } from '../../../src/kernel/http/outbound-policy.js';
import { silentLogger } from '../../../src/kernel/logging/logger.js';
import { createRedisClient } from '../../../src/kernel/redis/redis-client.js';
import { SdkMcpConnector } from '../../../src/mcp-client/adapters/sdk-connector.adapter.js';
import { McpClientManager } from '../../../src/mcp-client/mcp-client-manager.js';
import type { McpCallHooks } from '../../../src/mcp-client/mcp-connector.port.js';
import { checkElicitedContent } from '../../../src/chat/elicited-content.js';
import { McpConnectionsService } from '../../../src/mcp-client/mcp-connections.service.js';
import { McpConnectRequiredError } from '../../../src/mcp-client/mcp-oauth.port.js';
import { mcpServerDefaults, type McpServerRecord } from '../../../src/records/mcp-server.js';
import { mcpOAuthSettings } from '../../../src/roles/mcp-oauth.js';

const USER = 'conformance-user';
/**
 * The client ID metadata document the suite's authorization servers take (auth/basic-cimd): a
 * fixed URL of the suite, named to no client in a scenario's context, so the service's setting for
 * where its document is published is given it for every scenario (the others register dynamically).
 */
const SUITE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Sign-ins one operation may need: the first, and a step-up to more scopes. */
const MAX_SIGN_INS = 3;

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
const serverUrl = process.argv[2];
if (!serverUrl) throw new Error('usage: driver <server-url>');

const config = loadConfig({
  REDIS_URL: process.env.AIOPS_CONFORMANCE_REDIS_URL ?? '',
  REDIS_KEY_PREFIX: `conformance-${randomUUID()}`,
  PUBLIC_URL: 'http://127.0.0.1:9',
  MCP_OAUTH_CLIENT_METADATA_URL: SUITE_CLIENT_METADATA_URL,
  PLATFORM_TOKEN_KEY: 'conformance-driver-sealing-key-0123456789',
  OUTBOUND_ALLOW: '127.0.0.0/8,::1,localhost',
});
const redis = createRedisClient({ topology: config.redis.topology, role: 'worker', logger: silentLogger() });
const policy = OutboundPolicy.fromList(config.security.outboundAllow);
const oauth = mcpOAuthSettings(config, redis, policy)!;
const connector = new SdkMcpConnector({ clientName: 'aiops', clientVersion: 'conformance', outbound: outboundFetch(policy), oauth });

const now = new Date().toISOString();
const clientCredentials = scenario.startsWith('auth/client-credentials');
const server: McpServerRecord = {
  ...mcpServerDefaults(),
  id: randomUUID(),
  created: now,
  last_updated: now,
  name: 'conformance',
  status_id: '',
  url: serverUrl,
  mcp_endpoint: '',
  last_checked: null,
  last_error: null,
  latency_ms: null,
  last_check_method: null,
  destination_trusted: true,
  auth: scenario.startsWith('auth/') ? 'oauth' : 'none',
  oauth_grant: clientCredentials ? 'client_credentials' : 'authorization_code',
  oauth_client_id: context.client_id ?? '',
  oauth_client_secret_key: context.client_secret ? 'client-secret' : '',
};
const secrets = { resolve: async () => context.client_secret ?? '' };
const connections = new McpConnectionsService({
  servers: { get: async (id) => (id === server.id ? server : null) },
  secrets,
  signIn: connector,
  store: oauth.store,
  connectTimeoutMs: 10_000,
});
const manager = new McpClientManager({
  connector,
  credentials: secrets,
  connectionTtlMs: 60_000,
  connectTimeoutMs: 10_000,
  logger: silentLogger(),
});
const target = { server, version: '1', user: USER };

/**
 * The user answering a server's question during a call: a form accepted as offered (nothing typed
 * in, so the client fills in the schema's defaults), checked as the API checks a user's answer; a
 * web address declined (the suite asks for none).
 */
const elicit: McpCallHooks['elicit'] = async (question) =>
  question.mode === 'form' ? { action: 'accept', content: checkElicitedContent(question.requestedSchema, {}) } : { action: 'decline' };

/** The user's browser: to the authorization endpoint, and back to the service's callback with its code and state. */
async function signIn(authorizationUrl: string): Promise<void> {
  const approved = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = approved.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered HTTP ${approved.status} without a redirect`);
  const back = new URL(location);
  await connections.finish(back.searchParams.get('state') ?? '', back.searchParams.get('code') ?? '');
}

/** `operation`, signing the user in each time the server asks for it, as a user answering connect_required would. */
async function asUser<T>(operation: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof McpConnectRequiredError) || attempt > MAX_SIGN_INS) throw error;
      await signIn(error.authorizationUrl);
    }
  }
}

try {
  const tools = await asUser(() => manager.listTools(target));
  for (const tool of tools) {
    const properties = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
    const args = Object.fromEntries(properties.map((name, index) => [name, index + 1]));
    await asUser(() => manager.callTool(target, tool.name, args, { timeoutMs: 10_000, elicit }));
  }
} finally {
  await manager.close();
  redis.disconnect();
}
