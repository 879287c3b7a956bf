import { z } from 'zod';
import { list, settings } from '../kernel/config/settings.js';

/** A comma-separated list, each entry trimmed of blanks and trailing slashes. */
function entries(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/**
 * The platform tool server (`aiops mcp`, and the built-in tools chat turns get from it): its tools,
 * who may call it over HTTP, and how a host's user confirms writes.
 */
export const TOOL_SERVER_SETTINGS = settings({
  env: {
    PLATFORM_ANSWER_BUDGET_CHARS: z.coerce.number().int().min(1_000).default(16_000),
    PLATFORM_INDEX_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
    TOOL_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and "_"')
      .default('platform'),
    DEFAULT_SEARCH_RESULTS: z.coerce.number().int().min(1).max(50).default(5),
    TELEMETRY_API_KEY: z.string().default('disable'),
    MCP_ALLOWED_HOSTS: list,
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
  read: (e) => ({
    toolServer: {
      /** The API request tool fits list answers into this many characters, saying where the rest starts. */
      answerBudgetChars: e.PLATFORM_ANSWER_BUDGET_CHARS,
      /** How long a tool call (and a write's plan) waits for the endpoint index's first build. */
      indexWaitMs: e.PLATFORM_INDEX_WAIT_MS,
      toolPrefix: e.TOOL_PREFIX,
      /** `n_results` when a search tool's call (or `aiops kb search`) gives none. */
      defaultResults: e.DEFAULT_SEARCH_RESULTS,
      /** Anything but `disable` is accepted and ignored: this service never sends telemetry. */
      telemetryApiKey: e.TELEMETRY_API_KEY,
      /**
       * Host names `aiops mcp --http` answers to (the Host header, without port): its protection from
       * DNS rebinding. Empty: the SDK's default, loopback names when bound to loopback, anything otherwise.
       */
      allowedHosts: e.MCP_ALLOWED_HOSTS,
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
      /**
       * TOOLSERVER_CONFIRM_TTL_S: how long a confirm token, and a question put to a host's user, stay
       * good (the chat's sealed approvals for this server too).
       */
      confirmTtlMs: e.TOOLSERVER_CONFIRM_TTL_S * 1_000,
    },
  }),
});
