import { readFileSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import path from 'node:path';
import { z } from 'zod';
import { StartupError } from '../errors.js';
import { OutboundPolicy } from '../http/outbound-policy.js';
import { isCronExpression, isHost, isProxyList, missingModule, unwritableFolder } from './setting-checks.js';

const port = z.coerce.number().int().min(1).max(65535);
const CRON_MESSAGE = 'not a cron expression: five fields (minute hour day month weekday), or six with seconds first';
/** A comma-separated list; blanks dropped. */
const list = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );
const logLevel = z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']);

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'TRUE', 'FALSE', 'True', 'False'])
  .transform((value) => ['true', '1', 'yes'].includes(value.toLowerCase()));

/** The most records one list page holds and one bulk write takes, unless MAX_PAGE_SIZE says otherwise (Nautobot's default). */
export const DEFAULT_MAX_PAGE_SIZE = 1_000;

/**
 * Every environment variable the service reads, with its default; an empty variable counts as
 * unset. The README's tables are written from this schema (sections "Configuration", "Platform
 * tool server (MCP)" and "Knowledge base"); keep them together.
 */
const EnvSchema = z.object({
  // Optional here: whether it is set decides where index work runs (see Config.redis.configured).
  REDIS_URL: z.string().url().optional(),
  REDIS_SENTINELS: list.refine((entries) => entries.every(isHostPort), 'comma-separated host:port pairs'),
  REDIS_SENTINEL_NAME: z.string().default('mymaster'),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  REDIS_CLUSTER_NODES: list.refine((entries) => entries.every(isHostPort), 'comma-separated host:port pairs'),
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(16).optional(),
  REDIS_WAIT_TIMEOUT_MS: z.coerce.number().int().min(10).max(1_500).default(1_000),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "-" and "_" only')
    .default('aiops'),
  SESSION_REDIS_DB: z.coerce.number().int().min(0).max(15).default(2),
  SESSION_TTL_S: z.coerce.number().int().min(60).default(604_800),
  SESSION_CLEANUP_CRON: z.string().refine(isCronExpression, CRON_MESSAGE).default('17 * * * *'),
  CHAT_WAIT_S: z.coerce.number().min(0).max(3_600).default(120),
  CHAT_RATE_PER_MIN: z.coerce.number().int().min(0).default(30),
  CHAT_TOKEN_BUDGET_PER_DAY: z.coerce.number().int().min(0).default(0),
  CHAT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
  CHAT_PROVIDER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(8),
  CHAT_PROVIDER_CONCURRENCY_TOTAL: z.coerce.number().int().min(0).max(100_000).default(0),
  CHAT_USER_MAX_TURNS: z.coerce.number().int().min(0).max(1_000).default(8),
  CHAT_HISTORY_BUDGET_CHARS: z.coerce.number().int().min(1_000).default(48_000),
  CHAT_STREAMING: flag.default(true),
  CHAT_STREAM_INTERVAL_MS: z.coerce.number().int().min(10).max(5_000).default(100),
  AGENT_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(10),
  AGENT_TIMEOUT_S: z.coerce.number().int().min(1).default(120),
  AGENT_BUILTIN_TOOLS: flag.default(true),
  APPROVAL_TIMEOUT_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(900),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_TRUSTED_PROPAGATION: flag.default(false),
  USAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
  MCP_TOOL_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(30),
  MCP_TOOL_MAX_S: z.coerce.number().int().min(1).max(86_400).default(600),
  MCP_TOOL_RESULT_CHARS: z.coerce.number().int().min(200).default(16_000),
  CHAT_MESSAGE_MAX_CHARS: z.coerce.number().int().min(1_000).default(100_000),
  MCP_CONNECTION_TTL_S: z.coerce.number().int().min(1).default(300),
  MCP_CONNECT_TIMEOUT_S: z.coerce.number().int().min(1).max(600).default(10),
  MCP_OAUTH_STATE_TTL_S: z.coerce.number().int().min(30).max(3_600).default(600),
  MCP_OAUTH_CLIENT_METADATA_URL: z
    .string()
    .url()
    .refine((value) => /^https:\/\/[^/]+\/./.test(value), 'an https URL with a path (where the client metadata document is published)')
    .optional(),
  HEALTH_CRON: z.string().refine(isCronExpression, CRON_MESSAGE).default('*/30 * * * * *'),
  HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  HEALTH_FALL: z.coerce.number().int().min(1).max(100).default(2),
  HEALTH_RISE: z.coerce.number().int().min(1).max(100).default(2),
  HEALTH_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
  PROVIDER_TIMEOUT_S: z.coerce.number().int().min(1).default(60),
  PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  PROVIDER_MAX_RESPONSE_BYTES: z.coerce.number().int().min(65_536).default(8_388_608),
  OLLAMA_HOST: z.string().url().default('http://127.0.0.1:11434'),
  CUSTOM_PROVIDERS: z.string().default(''),
  HOST: z.string().refine(isHost, 'an IP address or a host name').default('127.0.0.1'),
  PORT: port.default(8080),
  PUBLIC_URL: z.string().url().optional(),
  ALLOWED_HOSTS: list,
  TRUST_PROXY: list.refine(isProxyList, 'comma-separated addresses, CIDRs, loopback, linklocal or uniquelocal'),
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  MAX_PAGE_SIZE: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_MAX_PAGE_SIZE),
  METRICS_PORT: port.optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: logLevel.default('info'),

  // Embedding model and vector store: the tool server and the knowledge-base workers.
  EMBEDDING_MODEL: z.string().min(1).default('Xenova/all-MiniLM-L6-v2'),
  EMBEDDING_MODEL_PATH: z.string().optional(),
  QDRANT_URL: z.string().url().optional(),
  QDRANT_API_KEY: z.string().optional(),

  // Platform tool server (MCP): `aiops mcp`.
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

  // Knowledge base: Git repositories cloned, chunked and embedded by `index` jobs (or in process without Redis).
  GIT_BASE_URL: z.string().url('a URL such as https://git.example.com or file:///srv/git (a local folder)').default('https://github.com'),
  GIT_TOKEN: z.string().optional(),
  GIT_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(300),
  MAX_FILE_BYTES: z.coerce.number().int().min(1_024).default(1_000_000),
  KB_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).max(20_000).default(1_500),
  KB_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(5_000).default(200),
  KB_JOB_WAIT_S: z.coerce.number().int().min(1).default(1_800),
  KB_INDEX_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  KB_OFFICIAL_REPOS: flag.default(true),
  KB_LOCAL_ROOTS: list.refine((dirs) => dirs.every((dir) => path.isAbsolute(dir)), 'comma-separated absolute folders'),
  OUTBOUND_ALLOW: list.refine(
    (entries) => entries.every((entry) => OutboundPolicy.isEntry(entry)),
    'comma-separated CIDRs, addresses and host names',
  ),
  SECRET_ENV_ALLOW: list,
  SECRET_FILE_DIRS: list.refine((dirs) => dirs.every((dir) => path.isAbsolute(dir)), 'comma-separated absolute folders'),
  STDIO_COMMANDS_ALLOW: list,
});

/**
 * A loopback port of the service's own, not Redis's standard 6379: a Redis that another program
 * runs on this machine is never written to unless REDIS_URL names it.
 */
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6390';

export type Env = z.infer<typeof EnvSchema>;

/** The embedding model and the vector store of a process. */
export interface VectorConfig {
  /** `none` turns dense retrieval off (lexical only). */
  embeddingModel: string;
  embeddingModelPath?: string;
  qdrant?: { url: string; apiKey?: string };
}

/** The platform tool server (`aiops mcp`). */
export interface PlatformConfig {
  env: 'local' | 'nonprod' | 'prod';
  /**
   * The platform is this service's own API (PLATFORM_ENV local with no PLATFORM_URL_LOCAL, or
   * PLATFORM_SELF=true): the chat agent's calls then carry the asking user's delegated rights.
   */
  isSelf: boolean;
  /** The platform chosen by PLATFORM_ENV, without a trailing slash. */
  url: string;
  token?: string;
  /** Seals users' own platform tokens at rest (PLATFORM_TOKEN_KEY); without it they cannot be stored. */
  personalTokenKey?: string;
  verifyTls: boolean;
  timeoutMs: number;
  readOnly: boolean;
  specPath: string;
  maxResponseBytes: number;
  /** The API request tool fits list answers into this many characters, saying where the rest starts. */
  answerBudgetChars: number;
  indexWaitMs: number;
  /** WRITE_MAX_OBJECTS: a planned write changing or deleting more objects is refused before anyone is asked. */
  writeMaxObjects: number;
  toolPrefix: string;
  defaultResults: number;
  /** Anything but `disable` is accepted and ignored: this service never sends telemetry. */
  telemetryApiKey: string;
  /**
   * Host names `aiops mcp --http` answers to (the Host header, without port): its protection from
   * DNS rebinding. Empty: the SDK's default, loopback names when bound to loopback, anything otherwise.
   */
  allowedHosts: string[];
  /**
   * Origins (scheme://host[:port]) of browser pages that may call `aiops mcp --http`, besides the
   * server's own (same-origin); a request with any other `Origin` is refused with 403.
   */
  allowedOrigins: string[];
  /** A static bearer token `aiops mcp --http` accepts (beside this service's API tokens when Redis is configured). */
  httpToken?: string;
  /**
   * `aiops mcp --http`'s address as hosts reach it (behind a proxy, the proxy's), without a trailing
   * slash: the issuer of its OAuth authorization server, its endpoints' base and `<url>/mcp` the tokens' resource.
   */
  publicUrl?: string;
  /**
   * TOOLSERVER_WRITE_CONFIRM, how a host's user confirms a write of the request tool: `auto` (asked in
   * the host where it declares elicitation, else a confirm token), `token`, or `none` (the operator's
   * decision for hosts that confirm themselves; over HTTP it holds for superusers' calls only).
   */
  writeConfirm: 'auto' | 'token' | 'none';
  /** TOOLSERVER_CONFIRM_TTL_S: how long a confirm token, and a question put to a host's user, stay good. */
  confirmTtlMs: number;
}

/** The knowledge base: Git, chunking and index jobs. */
export interface KnowledgeConfig {
  gitBaseUrl: string;
  /** Sent as an HTTP header to the Git remote only; never stored or logged. */
  gitToken?: string;
  gitTimeoutMs: number;
  maxFileBytes: number;
  chunkMaxChars: number;
  chunkOverlapChars: number;
  /** How long the API, the tools and the CLI wait for an index job. */
  jobWaitMs: number;
  /** Index jobs at once per worker. */
  indexConcurrency: number;
  /** The official repositories are on the list (false: a Git server that does not mirror them). */
  officialRepositories: boolean;
  /** Folders under which a local repository (a path or file:// URL) may be added; none by default. Absolute, normalised. */
  localRoots: string[];
}

/** A `host:port` address (a Sentinel or a cluster node). */
export interface HostPort {
  host: string;
  port: number;
}

/** Credentials of the data nodes (Sentinel and Cluster; a single Redis takes them from its URL). */
export interface RedisLogin {
  username?: string;
  password?: string;
}

/**
 * Where Redis is: one server (REDIS_URL), a primary found through Sentinels (REDIS_SENTINELS) or
 * a Redis Cluster (REDIS_CLUSTER_NODES, any of its nodes).
 */
export type RedisTopology =
  | { kind: 'single'; url: string }
  | ({ kind: 'sentinel'; sentinels: HostPort[]; name: string; sentinelPassword?: string } & RedisLogin)
  | ({ kind: 'cluster'; nodes: HostPort[] } & RedisLogin);

export interface Config {
  redis: {
    topology: RedisTopology;
    /**
     * REDIS_URL (or REDIS_SENTINELS, or REDIS_CLUSTER_NODES) is set. Servers always use Redis (the
     * default URL when unset); the CLI's `kb` commands and the tool server run index work as
     * `index` jobs only when it is set.
     */
    configured: boolean;
    keyPrefix: string;
    /** Database of chat sessions (a cluster has only database 0: they share it, under keys of their own). */
    sessionDb: number;
    /**
     * A stored turn or record write is confirmed only once this many replicas have it (Redis WAIT),
     * within `timeoutMs`; 0: not waited for.
     */
    replicaWait: { replicas: number; timeoutMs: number };
  };
  chat: {
    sessionTtlS: number;
    cleanupCron: string;
    waitMs: number;
    /** Turns per user per minute; 0 turns the limit off. */
    ratePerMinute: number;
    /** A user's tokens per UTC day over every model (a model's daily_token_budget overrides it on that model); 0: none. */
    tokenBudgetPerDay: number;
    workerConcurrency: number;
    providerConcurrency: number;
    /** Calls at once to one LLM model across every worker process (0: no shared limit). */
    providerConcurrencyTotal: number;
    /** Turns of one user running at once across every worker process (0: no cap); a paused turn holds none. */
    userMaxTurns: number;
    historyBudgetChars: number;
    /** Providers stream their answers and turns publish the text as it comes (each piece at most every `streamIntervalMs`). */
    streaming: boolean;
    streamIntervalMs: number;
  };
  /** The tool-calling loop of a chat turn. */
  agent: {
    /** Model calls per turn; the last is offered no tools. */
    maxSteps: number;
    /** A turn (all its provider and tool calls) is abandoned after this. */
    timeoutMs: number;
    /** A tool call's limit, started again by each progress notification. */
    toolTimeoutMs: number;
    /** However often it reports progress, a tool call ends after this. */
    toolMaxMs: number;
    /** Characters of one tool result the model sees. */
    resultChars: number;
    /** Characters of one model answer (or step) kept and stored; the rest is cut with a marker. */
    answerChars: number;
    /** Offer chat turns the platform tools (search, schema, API request, knowledge base) with no MCP server record. */
    builtinTools: boolean;
    /** A proposed call that may change something counts as declined when its owner has not decided within this. */
    approvalTimeoutMs: number;
  };
  /** The audit log of the agent's tool calls. */
  audit: { retentionMs: number };
  /** Token usage per user, model and day: kept this many days after the day ends. */
  usage: { retentionDays: number };
  /** OpenTelemetry traces, exported with OTLP over HTTP when an endpoint is set (the other OTEL_* settings are the SDK's). */
  /** `trustedPropagation`: a caller's trace context is the parent of the request's span, not only a link. */
  tracing: { endpoint?: string; trustedPropagation: boolean };
  /** Sessions with MCP tool servers. */
  /** oauthStateTtlMs: how long a user's sign-in to an OAuth MCP server may take (MCP_OAUTH_STATE_TTL_S). */
  /** oauthClientMetadataUrl: where the OAuth client's metadata document is published, when not on PUBLIC_URL (MCP_OAUTH_CLIENT_METADATA_URL). */
  mcp: { connectionTtlMs: number; connectTimeoutMs: number; oauthStateTtlMs: number; oauthClientMetadataUrl?: string };
  /** MCP server health checks. */
  health: { cron: string; timeoutMs: number; fall: number; rise: number; concurrency: number };
  providers: {
    timeoutMs: number;
    maxRetries: number;
    /** A provider answer's body beyond this many bytes is refused (a 502), never read whole. */
    maxResponseBytes: number;
    ollamaHost: string;
    customModules: string[];
  };
  http: {
    host: string;
    port: number;
    /** Proxies whose X-Forwarded-For is believed: addresses, CIDRs or `loopback`. */
    trustProxy: string[];
    /** PUBLIC_URL: the API's address as clients reach it, the base of every link an answer carries. */
    publicUrl?: string;
    /** Host names (and host:port) a link may be built on when no PUBLIC_URL is set, besides loopback and HOST. */
    allowedHosts: string[];
    drainDelayMs: number;
    shutdownTimeoutMs: number;
    /** The most records one list page holds (`limit=0` asks for this many) and one bulk write takes. */
    maxPageSize: number;
    /** Where `aiops worker` serves /metrics (the API serves it on its own port); none when unset. */
    metricsPort?: number;
  };
  /**
   * What users short of superuser may still do (README "Security model"): internal destinations,
   * environment variables and folders a secret may read, stdio commands. All empty by default.
   */
  security: { outboundAllow: string[]; secretEnvAllow: string[]; secretFileDirs: string[]; stdioCommandsAllow: string[] };
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
  /** Settings given under an old name, one line each (`CHECKPOINT_TTL_S is SESSION_TTL_S now`), for the CLI to say. */
  renamedSettings: string[];
  vectors: VectorConfig;
  platform: PlatformConfig;
  knowledge: KnowledgeConfig;
}

/** Where the platform is when nothing says otherwise: this service's own API, on loopback at PORT. */
function defaultLocalPlatform(e: Pick<Env, 'PORT'>): string {
  return `http://127.0.0.1:${e.PORT}`;
}

/** An empty variable counts as unset (`REDIS_URL=` in a compose file or a `.env`). */
function withoutEmpty(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
}

/** Settings renamed to the service's words (a chat's history is its session); the old names still work. */
const RENAMED_SETTINGS: Readonly<Record<string, keyof Env>> = {
  CHECKPOINT_REDIS_DB: 'SESSION_REDIS_DB',
  CHECKPOINT_TTL_S: 'SESSION_TTL_S',
  CHECKPOINT_CLEANUP_CRON: 'SESSION_CLEANUP_CRON',
};

/**
 * The variables under their current names (a current name set wins over its old one), and the
 * name each was given under, so that a problem names the variable the operator wrote.
 */
function withCurrentNames(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; givenAs: Map<string, string> } {
  const current = { ...env };
  const givenAs = new Map<string, string>();
  for (const [old, name] of Object.entries(RENAMED_SETTINGS)) {
    const value = current[old];
    delete current[old];
    if (value === undefined || current[name] !== undefined) continue;
    current[name] = value;
    givenAs.set(name, old);
  }
  return { env: current, givenAs };
}

/**
 * What the settings name on disk, read from the variables as given (so these are reported along
 * with any other bad variable): CUSTOM_PROVIDERS modules exist, DATA_DIR can be written.
 */
function fileProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const specifier of (env.CUSTOM_PROVIDERS ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const missing = missingModule(specifier, process.cwd());
    if (missing) problems.push(`CUSTOM_PROVIDERS: ${missing}`);
  }
  const unwritable = unwritableFolder(env.DATA_DIR ?? EnvSchema.shape.DATA_DIR.parse(undefined));
  if (unwritable) problems.push(`DATA_DIR: ${unwritable}`);
  return problems;
}

/** Every problem with the environment, one line each; none when it parses. */
function problemsOf(e: Env): string[] {
  const problems: string[] = [];
  const platformUrl = {
    local: e.PLATFORM_URL_LOCAL ?? defaultLocalPlatform(e),
    nonprod: e.PLATFORM_URL_NONPROD,
    prod: e.PLATFORM_URL_PROD,
  }[e.PLATFORM_ENV];
  if (!platformUrl) problems.push(`PLATFORM_ENV is ${e.PLATFORM_ENV} but PLATFORM_URL_${e.PLATFORM_ENV.toUpperCase()} is not set`);
  const topologies = [
    e.REDIS_URL && 'REDIS_URL',
    e.REDIS_SENTINELS.length > 0 && 'REDIS_SENTINELS',
    e.REDIS_CLUSTER_NODES.length > 0 && 'REDIS_CLUSTER_NODES',
  ].filter(Boolean);
  if (topologies.length > 1)
    problems.push(`${topologies.join(' and ')} are both set: set one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES`);
  if (e.KB_CHUNK_OVERLAP_CHARS >= e.KB_CHUNK_MAX_CHARS) problems.push('KB_CHUNK_OVERLAP_CHARS must be below KB_CHUNK_MAX_CHARS');
  return problems;
}

function hostPort(entry: string): HostPort {
  const at = entry.lastIndexOf(':');
  return { host: entry.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(entry.slice(at + 1)) };
}

function isHostPort(entry: string): boolean {
  const address = hostPort(entry);
  return address.host.length > 0 && port.safeParse(address.port).success;
}

function redisTopology(e: Env): RedisTopology {
  const login = {
    ...(e.REDIS_USERNAME ? { username: e.REDIS_USERNAME } : {}),
    ...(e.REDIS_PASSWORD ? { password: e.REDIS_PASSWORD } : {}),
  };
  if (e.REDIS_SENTINELS.length > 0) {
    return {
      kind: 'sentinel',
      sentinels: e.REDIS_SENTINELS.map(hostPort),
      name: e.REDIS_SENTINEL_NAME,
      ...(e.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: e.REDIS_SENTINEL_PASSWORD } : {}),
      ...login,
    };
  }
  if (e.REDIS_CLUSTER_NODES.length > 0) return { kind: 'cluster', nodes: e.REDIS_CLUSTER_NODES.map(hostPort), ...login };
  return { kind: 'single', url: e.REDIS_URL ?? DEFAULT_REDIS_URL };
}

function redisConfig(e: Env): Config['redis'] {
  const topology = redisTopology(e);
  return {
    topology,
    configured: e.REDIS_URL !== undefined || topology.kind !== 'single',
    keyPrefix: e.REDIS_KEY_PREFIX,
    sessionDb: e.SESSION_REDIS_DB,
    // Sentinel and Cluster exist to keep a copy on a replica: by default a write waits for one.
    replicaWait: { replicas: e.REDIS_WAIT_REPLICAS ?? (topology.kind === 'single' ? 0 : 1), timeoutMs: e.REDIS_WAIT_TIMEOUT_MS },
  };
}

export interface LoadOptions {
  /** Also check what the settings name on disk: CUSTOM_PROVIDERS modules exist, DATA_DIR is writable. */
  checkFiles?: boolean;
}

/** One line per problem, each naming its variable: the CLI prints them as they are. */
function invalid(problems: string[]): StartupError {
  return new StartupError(problems.map((problem) => `invalid configuration: ${problem}`).join('\n'));
}

/**
 * Parses the environment, once per process: a bad variable fails start-up with every problem
 * named, one line each. Every role takes the sections it needs from the result.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  const { env: given, givenAs } = withCurrentNames(withoutEmpty(env));
  const parsed = EnvSchema.safeParse(given);
  const problems = parsed.success
    ? problemsOf(parsed.data)
    : parsed.error.issues.map((issue) => {
        const name = issue.path.join('.');
        return `${givenAs.get(name) ?? name}: ${issue.message}`;
      });
  if (options.checkFiles) problems.push(...fileProblems(given));
  if (!parsed.success || problems.length > 0) throw invalid(problems);
  const e = parsed.data;
  return {
    redis: redisConfig(e),
    chat: {
      sessionTtlS: e.SESSION_TTL_S,
      cleanupCron: e.SESSION_CLEANUP_CRON,
      waitMs: e.CHAT_WAIT_S * 1_000,
      ratePerMinute: e.CHAT_RATE_PER_MIN,
      tokenBudgetPerDay: e.CHAT_TOKEN_BUDGET_PER_DAY,
      workerConcurrency: e.CHAT_WORKER_CONCURRENCY,
      providerConcurrency: e.CHAT_PROVIDER_CONCURRENCY,
      providerConcurrencyTotal: e.CHAT_PROVIDER_CONCURRENCY_TOTAL,
      userMaxTurns: e.CHAT_USER_MAX_TURNS,
      historyBudgetChars: e.CHAT_HISTORY_BUDGET_CHARS,
      streaming: e.CHAT_STREAMING,
      streamIntervalMs: e.CHAT_STREAM_INTERVAL_MS,
    },
    agent: {
      maxSteps: e.AGENT_MAX_STEPS,
      timeoutMs: e.AGENT_TIMEOUT_S * 1_000,
      toolTimeoutMs: e.MCP_TOOL_TIMEOUT_S * 1_000,
      toolMaxMs: e.MCP_TOOL_MAX_S * 1_000,
      resultChars: e.MCP_TOOL_RESULT_CHARS,
      answerChars: e.CHAT_MESSAGE_MAX_CHARS,
      builtinTools: e.AGENT_BUILTIN_TOOLS,
      approvalTimeoutMs: e.APPROVAL_TIMEOUT_S * 1_000,
    },
    audit: { retentionMs: e.AUDIT_RETENTION_DAYS * 86_400_000 },
    usage: { retentionDays: e.USAGE_RETENTION_DAYS },
    tracing: {
      ...(e.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
      trustedPropagation: e.OTEL_TRUSTED_PROPAGATION,
    },
    mcp: {
      connectionTtlMs: e.MCP_CONNECTION_TTL_S * 1_000,
      connectTimeoutMs: e.MCP_CONNECT_TIMEOUT_S * 1_000,
      oauthStateTtlMs: e.MCP_OAUTH_STATE_TTL_S * 1_000,
      ...(e.MCP_OAUTH_CLIENT_METADATA_URL ? { oauthClientMetadataUrl: e.MCP_OAUTH_CLIENT_METADATA_URL } : {}),
    },
    health: {
      cron: e.HEALTH_CRON,
      timeoutMs: e.HEALTH_TIMEOUT_MS,
      fall: e.HEALTH_FALL,
      rise: e.HEALTH_RISE,
      concurrency: e.HEALTH_CONCURRENCY,
    },
    providers: {
      timeoutMs: e.PROVIDER_TIMEOUT_S * 1_000,
      maxRetries: e.PROVIDER_MAX_RETRIES,
      maxResponseBytes: e.PROVIDER_MAX_RESPONSE_BYTES,
      ollamaHost: e.OLLAMA_HOST,
      customModules: e.CUSTOM_PROVIDERS.split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    },
    http: {
      host: e.HOST,
      port: e.PORT,
      trustProxy: e.TRUST_PROXY,
      ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL.replace(/\/+$/, '') } : {}),
      allowedHosts: e.ALLOWED_HOSTS,
      drainDelayMs: e.DRAIN_DELAY_MS,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      maxPageSize: e.MAX_PAGE_SIZE,
      ...(e.METRICS_PORT === undefined ? {} : { metricsPort: e.METRICS_PORT }),
    },
    security: {
      outboundAllow: e.OUTBOUND_ALLOW,
      secretEnvAllow: e.SECRET_ENV_ALLOW,
      secretFileDirs: e.SECRET_FILE_DIRS.map((dir) => path.resolve(dir)),
      stdioCommandsAllow: e.STDIO_COMMANDS_ALLOW,
    },
    // A relative DATA_DIR counts from the folder aiops starts in, whatever a part of it runs in later.
    renamedSettings: [...givenAs].map(([name, old]) => `${old} is ${name} now; the old name still works`),
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    vectors: {
      embeddingModel: e.EMBEDDING_MODEL,
      embeddingModelPath: e.EMBEDDING_MODEL_PATH,
      qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY } : undefined,
    },
    platform: {
      env: e.PLATFORM_ENV,
      isSelf: e.PLATFORM_SELF ?? (e.PLATFORM_ENV === 'local' && e.PLATFORM_URL_LOCAL === undefined),
      url: { local: e.PLATFORM_URL_LOCAL ?? defaultLocalPlatform(e), nonprod: e.PLATFORM_URL_NONPROD, prod: e.PLATFORM_URL_PROD }[
        e.PLATFORM_ENV
      ]!.replace(/\/+$/, ''),
      token: e.PLATFORM_TOKEN,
      personalTokenKey: e.PLATFORM_TOKEN_KEY,
      verifyTls: e.PLATFORM_VERIFY_TLS,
      timeoutMs: e.PLATFORM_TIMEOUT_MS,
      readOnly: e.PLATFORM_READ_ONLY,
      specPath: e.PLATFORM_SPEC_PATH,
      maxResponseBytes: e.PLATFORM_MAX_RESPONSE_BYTES,
      answerBudgetChars: e.PLATFORM_ANSWER_BUDGET_CHARS,
      indexWaitMs: e.PLATFORM_INDEX_WAIT_MS,
      writeMaxObjects: e.WRITE_MAX_OBJECTS,
      toolPrefix: e.TOOL_PREFIX,
      defaultResults: e.DEFAULT_SEARCH_RESULTS,
      telemetryApiKey: e.TELEMETRY_API_KEY,
      allowedHosts: e.MCP_ALLOWED_HOSTS.split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
      allowedOrigins: e.MCP_ALLOWED_ORIGINS.split(',')
        .map((entry) => entry.trim().replace(/\/+$/, ''))
        .filter(Boolean),
      httpToken: e.MCP_HTTP_TOKEN,
      ...(e.MCP_PUBLIC_URL ? { publicUrl: e.MCP_PUBLIC_URL.replace(/\/+$/, '') } : {}),
      writeConfirm: e.TOOLSERVER_WRITE_CONFIRM,
      confirmTtlMs: e.TOOLSERVER_CONFIRM_TTL_S * 1_000,
    },
    knowledge: {
      gitBaseUrl: e.GIT_BASE_URL.replace(/\/+$/, ''),
      gitToken: e.GIT_TOKEN,
      gitTimeoutMs: e.GIT_TIMEOUT_S * 1_000,
      maxFileBytes: e.MAX_FILE_BYTES,
      chunkMaxChars: e.KB_CHUNK_MAX_CHARS,
      chunkOverlapChars: e.KB_CHUNK_OVERLAP_CHARS,
      jobWaitMs: e.KB_JOB_WAIT_S * 1_000,
      indexConcurrency: e.KB_INDEX_CONCURRENCY,
      officialRepositories: e.KB_OFFICIAL_REPOS,
      localRoots: e.KB_LOCAL_ROOTS.map((dir) => path.resolve(dir)),
    },
  };
}

/** The variables of `dir`/.env, none when there is no such file. */
function readDotenv(dir: string): Record<string, string> {
  try {
    return parseDotenv(readFileSync(`${dir}/.env`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new StartupError(`cannot read .env in ${dir}: ${(error as Error).message}`);
  }
}

/**
 * The configuration of this process, parsed once (by the CLI): an optional `.env` in the working
 * directory first fills the variables the environment leaves unset (or empty), so that every
 * setting, and a secret's environment variable, can come from either.
 */
export function loadProcessConfig(dir = process.cwd()): Config {
  for (const [name, value] of Object.entries(readDotenv(dir))) {
    if (!process.env[name]) process.env[name] = value;
  }
  return loadConfig(process.env, { checkFiles: true });
}

/** Every variable the configuration reads, current and old names (tests give their processes none but their own). */
export const SETTING_NAMES: readonly string[] = [...Object.keys(EnvSchema.shape), ...Object.keys(RENAMED_SETTINGS)];
