import { z } from 'zod';
import { HTTP_ENV } from '../kernel/config/config.js';
import { flag, settings, type SectionsOf } from '../kernel/config/settings.js';

/** Where the platform is when nothing says otherwise: this service's own API, on loopback at PORT. */
function defaultLocalPlatform(e: { PORT: number }): string {
  return `http://127.0.0.1:${e.PORT}`;
}

/** The platform the service acts on: where it is, how it is reached, and its OpenAPI description. */
export const PLATFORM_SETTINGS = settings({
  env: {
    PORT: HTTP_ENV.PORT,
    PLATFORM_ENV: z.enum(['local', 'nonprod', 'prod']).default('local'),
    PLATFORM_URL_LOCAL: z.string().url().optional(),
    PLATFORM_URL_NONPROD: z.string().url().optional(),
    PLATFORM_URL_PROD: z.string().url().optional(),
    PLATFORM_TOKEN: z.string().optional(),
    PLATFORM_TOKEN_KEY: z.string().min(32, 'at least 32 characters').optional(),
    PLATFORM_SELF: flag.optional(),
    PLATFORM_VERIFY_TLS: flag.default(true),
    PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    PLATFORM_READ_ONLY: flag.default(false),
    PLATFORM_SPEC_PATH: z.string().startsWith('/').default('/api/docs/?format=openapi'),
    PLATFORM_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1_024).default(200_000),
  },
  problems: (e) =>
    platformUrl(e) ? [] : [`PLATFORM_ENV is ${e.PLATFORM_ENV} but PLATFORM_URL_${e.PLATFORM_ENV.toUpperCase()} is not set`],
  read: (e) => ({
    platform: {
      env: e.PLATFORM_ENV,
      /**
       * The platform is this service's own API (PLATFORM_ENV local with no PLATFORM_URL_LOCAL, or
       * PLATFORM_SELF=true): the chat agent's calls then carry the asking user's delegated rights.
       */
      isSelf: e.PLATFORM_SELF ?? (e.PLATFORM_ENV === 'local' && e.PLATFORM_URL_LOCAL === undefined),
      /** The platform chosen by PLATFORM_ENV, without a trailing slash (`problems` made sure it is set). */
      url: platformUrl(e)!.replace(/\/+$/, ''),
      token: e.PLATFORM_TOKEN,
      /** Seals users' own platform tokens at rest (PLATFORM_TOKEN_KEY); without it they cannot be stored. */
      personalTokenKey: e.PLATFORM_TOKEN_KEY,
      verifyTls: e.PLATFORM_VERIFY_TLS,
      timeoutMs: e.PLATFORM_TIMEOUT_MS,
      readOnly: e.PLATFORM_READ_ONLY,
      specPath: e.PLATFORM_SPEC_PATH,
      maxResponseBytes: e.PLATFORM_MAX_RESPONSE_BYTES,
    },
  }),
});

/** The platform PLATFORM_ENV chooses, unset when its URL is. */
function platformUrl(e: {
  PORT: number;
  PLATFORM_ENV: 'local' | 'nonprod' | 'prod';
  PLATFORM_URL_LOCAL?: string;
  PLATFORM_URL_NONPROD?: string;
  PLATFORM_URL_PROD?: string;
}): string | undefined {
  return { local: e.PLATFORM_URL_LOCAL ?? defaultLocalPlatform(e), nonprod: e.PLATFORM_URL_NONPROD, prod: e.PLATFORM_URL_PROD }[
    e.PLATFORM_ENV
  ];
}

/** The platform the service acts on. */
export type PlatformConfig = SectionsOf<typeof PLATFORM_SETTINGS>['platform'];
