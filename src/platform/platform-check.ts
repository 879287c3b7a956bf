import type { Schemas } from '../api/openapi-types.js';
import type { PlatformConfig } from './platform.settings.js';
import { redactSecrets } from '../kernel/security/redact-secrets.js';

export type PlatformCheck = Schemas['PlatformCheck'];

/**
 * What to set to point the agent at Nautobot or NetBox when the platform is this service: said at
 * start, on the admin page, by `aiops platform check` and by an endpoint search that finds nothing close.
 */
export const CONNECT_PLATFORM =
  'to act on Nautobot or NetBox, set PLATFORM_ENV=prod, PLATFORM_URL_PROD=<its address> and PLATFORM_TOKEN=<an API token of it> (in the environment or .env), then restart';

/** What an endpoint search on this service's own API adds when its best hit is weak: the agent is not connected to the network's platform. */
export const SELF_PLATFORM_NOTE = `the platform is this AI Ops service's own API (its records, chat and knowledge base), not Nautobot or NetBox: devices, sites, prefixes and the like are not here; ${CONNECT_PLATFORM}`;

/** The platform's OpenAPI description as the check reads it: where from, and how many operations a read one holds. */
export interface PlatformDescriptionSource {
  /** Where it is read, in words (PLATFORM_SPEC_PATH on the platform, or this service's own code). */
  source: string;
  fetch: () => Promise<unknown>;
  /** Operations (method and path) of a fetched description; throws when it is not one. */
  countOperations: (document: unknown) => number;
}

type PlatformTarget = Pick<PlatformConfig, 'env' | 'url' | 'isSelf' | 'token' | 'readOnly'>;

/** The platform's address as it may be shown: without a user name or password. */
function shownAddress(url: string): string {
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  return shown.toString().replace(/\/$/, '');
}

/** One line naming the platform the agent acts on, for the start-up log and the command line. */
export function platformLine(platform: PlatformTarget): string {
  return platform.isSelf
    ? `the agent acts on this service's own API (${shownAddress(platform.url)}), not on Nautobot or NetBox`
    : `the agent acts on the platform at ${shownAddress(platform.url)} (PLATFORM_ENV=${platform.env})`;
}

/** Which platform the agent acts on, and whether its description can be read now and how many operations it has. */
export async function checkPlatform(platform: PlatformTarget, description: PlatformDescriptionSource): Promise<PlatformCheck> {
  const read = await description.fetch().then(
    (document) => ({ state: 'ok' as const, operations: description.countOperations(document), error: null }),
    (error: unknown) => ({
      state: 'failed' as const,
      operations: null,
      error: redactSecrets(error instanceof Error ? error.message : String(error), [platform.token]),
    }),
  );
  return {
    env: platform.env,
    url: shownAddress(platform.url),
    is_self: platform.isSelf,
    token_set: Boolean(platform.token),
    read_only: platform.readOnly,
    description: { source: description.source, ...read },
    to_connect: platform.isSelf ? CONNECT_PLATFORM : null,
  };
}
