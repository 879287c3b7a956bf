import type { Config } from './config.js';
import type { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import { SealedBox } from '../kernel/security/sealed-box.js';
import { RedisMcpOAuthStore } from '../mcp-client/adapters/redis-oauth-store.adapter.js';
import type { SdkConnectorOptions } from '../mcp-client/adapters/sdk-connector.adapter.js';
import { MCP_OAUTH_CALLBACK_PATH, MCP_OAUTH_CLIENT_METADATA_PATH } from '../chat/http/mcp-connect.router.js';

/**
 * The OAuth client of per-user OAuth MCP servers, the same in the API (connect, callback) and the
 * workers (turns): its store, sealed with PLATFORM_TOKEN_KEY, and its redirect URI on PUBLIC_URL.
 * Without both, no user can connect (client-credentials servers need neither).
 */
export function mcpOAuthSettings(
  config: Pick<Config, 'platform' | 'http' | 'mcp' | 'redis'>,
  redis: RedisClient,
  policy: OutboundPolicy,
): SdkConnectorOptions['oauth'] {
  const { personalTokenKey } = config.platform;
  const { publicUrl } = config.http;
  if (!personalTokenKey || !publicUrl) return undefined;
  const clientMetadataUrl = oauthClientMetadataUrl(config);
  return {
    store: new RedisMcpOAuthStore(redis, config.redis.keyPrefix, new SealedBox(personalTokenKey)),
    redirectUrl: new URL(MCP_OAUTH_CALLBACK_PATH, `${publicUrl}/`).href,
    stateTtlMs: config.mcp.oauthStateTtlMs,
    clientName: 'aiops',
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    policy,
  };
}

/**
 * Where the OAuth client's metadata document is published: MCP_OAUTH_CLIENT_METADATA_URL, else on
 * PUBLIC_URL when that is https (authorization servers take no other); none otherwise.
 */
export function oauthClientMetadataUrl(config: Pick<Config, 'http' | 'mcp'>): string | undefined {
  const { publicUrl } = config.http;
  if (config.mcp.oauthClientMetadataUrl) return config.mcp.oauthClientMetadataUrl;
  return publicUrl?.startsWith('https:') ? new URL(MCP_OAUTH_CLIENT_METADATA_PATH, `${publicUrl}/`).href : undefined;
}
