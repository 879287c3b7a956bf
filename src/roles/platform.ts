import { loadOpenApiDocument } from '../api/openapi.js';
import { parseDescription } from '../endpoint-search/endpoint-document.js';
import type { PlatformConfig } from '../platform/platform.settings.js';
import { HttpPlatformClient, type PlatformClientOptions } from '../platform/adapters/http-platform-client.adapter.js';
import type { Logger } from '../kernel/logging/logger.js';
import {
  checkPlatform,
  CONNECT_PLATFORM,
  platformLine,
  type PlatformCheck,
  type PlatformDescriptionSource,
} from '../platform/platform-check.js';

/** Largest OpenAPI description accepted (Nautobot 2.x serves about 18 MB). */
const MAX_DESCRIPTION_BYTES = 64 * 1024 * 1024;

/**
 * The platform's REST API with the service's token; `pathTemplate` names request spans by the
 * description's operations.
 */
export function platformClient(
  platform: PlatformConfig,
  { pathTemplate }: Pick<PlatformClientOptions, 'pathTemplate'> = {},
): HttpPlatformClient {
  return new HttpPlatformClient({
    baseUrl: platform.url,
    token: platform.token,
    verifyTls: platform.verifyTls,
    timeoutMs: platform.timeoutMs,
    maxResponseBytes: platform.maxResponseBytes,
    readOnly: platform.readOnly,
    // A call that goes out without a credential and is refused names the setting that is missing.
    missingCredential: platform.isSelf
      ? "set PLATFORM_TOKEN to an API token of this service, or call `aiops mcp --http` with a user's own API token"
      : 'set PLATFORM_TOKEN to a token of the platform PLATFORM_ENV selects',
    ...(pathTemplate ? { pathTemplate } : {}),
  });
}

/**
 * Where the platform's description is read: this service's own ships with its code (and is served
 * as is), so it is read in process and needs no PLATFORM_TOKEN, which the tool server may not have
 * when the platform is itself; any other platform's from PLATFORM_SPEC_PATH.
 */
export function platformDescription(platform: PlatformConfig, client: HttpPlatformClient): PlatformDescriptionSource {
  return {
    source: platform.isSelf ? "this service's own code" : `${platform.specPath} on the platform`,
    fetch: platform.isSelf ? async () => loadOpenApiDocument() : () => client.fetchJson(platform.specPath, MAX_DESCRIPTION_BYTES),
    countOperations: (document) => parseDescription(document).endpoints.length,
  };
}

/** The platform check the admin page and `aiops platform check` show, reading the description anew each time. */
export function platformCheck(platform: PlatformConfig): () => Promise<PlatformCheck> {
  const description = platformDescription(platform, platformClient(platform));
  return () => checkPlatform(platform, description);
}

/** Says at start which platform the agent acts on and, when it is this service itself, how to connect the real one. */
export function announcePlatform(platform: PlatformConfig, logger: Logger): void {
  logger.info(`platform: ${platformLine(platform)}`);
  if (platform.isSelf) logger.warn(`platform not connected: ${CONNECT_PLATFORM}`);
}
