import { z } from 'zod';
import { HTTP_ENV } from '../kernel/config/config.js';
import { flag, settings, type SectionsOf } from '../kernel/config/settings.js';

/** Where the platform is when nothing says otherwise: this service's own API, on loopback at PORT. */
function defaultLocalPlatform(e: { PORT: number }): string {
  return `http://127.0.0.1:${e.PORT}`;
}

/** A comma-separated list, each entry trimmed of blanks and trailing slashes. */
function entries(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/**
 * The platform the service acts on and the platform tool server (`aiops mcp`) over it: its tools,
 * who may call it over HTTP, and how a host's user confirms writes.
 */
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
    PLATFORM_ANSWER_BUDGET_CHARS: z.coerce.number().int().min(1_000).default(16_000),
    PLATFORM_INDEX_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
    WRITE_MAX_OBJECTS: z.coerce.number().int().min(1).max(1_000).default(25),
    TOOL_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and "_"')
      .default('platform'),
    DEFAULT_SEARCH_RESULTS: z.coerce.number().int().min(1).max(50).default(5),
    TELEMETRY_API_KEY: z.string().default('disable'),
    MCP_ALLOWED_HOSTS: z.string().default(''),
    MCP_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .refine(
        (value) =>
          value
            .split(',')
            .map((entry) => entry.trim())
            .filter(Boolean)
            .every((entry) => URL.canParse(entry) && new URL(entry).origin === entry.replace(/\/+$/, '')),
        'comma-separated origins such as https://host.example.com (scheme, host and port only)',
      ),
    MCP_HTTP_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
    MCP_PUBLIC_URL: z.string().url().optional(),
    TOOLSERVER_WRITE_CONFIRM: z.enum(['auto', 'token', 'none']).default('auto'),
    TOOLSERVER_CONFIRM_TTL_S: z.coerce.number().int().min(10).max(3_600).default(300),
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
      /** The API request tool fits list answers into this many characters, saying where the rest starts. */
      answerBudgetChars: e.PLATFORM_ANSWER_BUDGET_CHARS,
      indexWaitMs: e.PLATFORM_INDEX_WAIT_MS,
      /** WRITE_MAX_OBJECTS: a planned write changing or deleting more objects is refused before anyone is asked. */
      writeMaxObjects: e.WRITE_MAX_OBJECTS,
      toolPrefix: e.TOOL_PREFIX,
      defaultResults: e.DEFAULT_SEARCH_RESULTS,
      /** Anything but `disable` is accepted and ignored: this service never sends telemetry. */
      telemetryApiKey: e.TELEMETRY_API_KEY,
      /**
       * Host names `aiops mcp --http` answers to (the Host header, without port): its protection from
       * DNS rebinding. Empty: the SDK's default, loopback names when bound to loopback, anything otherwise.
       */
      allowedHosts: e.MCP_ALLOWED_HOSTS.split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
      /**
       * Origins (scheme://host[:port]) of browser pages that may call `aiops mcp --http`, besides the
       * server's own (same-origin); a request with any other `Origin` is refused with 403.
       */
      allowedOrigins: entries(e.MCP_ALLOWED_ORIGINS),
      /** A static bearer token `aiops mcp --http` accepts (beside this service's API tokens when Redis is configured). */
      httpToken: e.MCP_HTTP_TOKEN,
      /**
       * `aiops mcp --http`'s address as hosts reach it (behind a proxy, the proxy's), without a trailing
       * slash: the issuer of its OAuth authorization server, its endpoints' base and `<url>/mcp` the tokens' resource.
       */
      ...(e.MCP_PUBLIC_URL ? { publicUrl: e.MCP_PUBLIC_URL.replace(/\/+$/, '') } : {}),
      /**
       * TOOLSERVER_WRITE_CONFIRM, how a host's user confirms a write of the request tool: `auto` (asked in
       * the host where it declares elicitation, else a confirm token), `token`, or `none` (the operator's
       * decision for hosts that confirm themselves; over HTTP it holds for superusers' calls only).
       */
      writeConfirm: e.TOOLSERVER_WRITE_CONFIRM,
      /** TOOLSERVER_CONFIRM_TTL_S: how long a confirm token, and a question put to a host's user, stay good. */
      confirmTtlMs: e.TOOLSERVER_CONFIRM_TTL_S * 1_000,
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

/** The platform tool server (`aiops mcp`) and the platform it acts on. */
export type PlatformConfig = SectionsOf<typeof PLATFORM_SETTINGS>['platform'];
