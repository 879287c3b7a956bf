import { z } from 'zod';
import { StartupError } from '../errors.js';

const port = z.coerce.number().int().min(1).max(65535);
const logLevel = z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']);

/**
 * Every environment variable the service reads, with its default. The README's table is written
 * from this schema; keep them together.
 */
const EnvSchema = z.object({
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "-" and "_" only')
    .default('aiops'),
  CHECKPOINT_REDIS_DB: z.coerce.number().int().min(0).max(15).default(2),
  CHECKPOINT_TTL_S: z.coerce.number().int().min(60).default(604_800),
  CHECKPOINT_CLEANUP_CRON: z.string().min(9).default('17 * * * *'),
  CHAT_WAIT_S: z.coerce.number().min(0).max(3_600).default(120),
  CHAT_RATE_PER_MIN: z.coerce.number().int().min(0).default(30),
  CHAT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
  CHAT_PROVIDER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(8),
  CHAT_HISTORY_BUDGET_CHARS: z.coerce.number().int().min(1_000).default(48_000),
  AGENT_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(10),
  AGENT_TIMEOUT_S: z.coerce.number().int().min(1).default(120),
  MCP_TOOL_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(30),
  MCP_TOOL_RESULT_CHARS: z.coerce.number().int().min(200).default(16_000),
  MCP_CONNECTION_TTL_S: z.coerce.number().int().min(1).default(300),
  MCP_CONNECT_TIMEOUT_S: z.coerce.number().int().min(1).max(600).default(10),
  HEALTH_CRON: z.string().min(9).default('*/30 * * * * *'),
  HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  HEALTH_FALL: z.coerce.number().int().min(1).max(100).default(2),
  HEALTH_RISE: z.coerce.number().int().min(1).max(100).default(2),
  HEALTH_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
  PROVIDER_TIMEOUT_S: z.coerce.number().int().min(1).default(60),
  PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  OLLAMA_HOST: z.string().url().default('http://127.0.0.1:11434'),
  CUSTOM_PROVIDERS: z.string().default(''),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  TRUST_PROXY: z.string().default(''),
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  METRICS_PORT: port.optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: logLevel.default('info'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  redis: { url: string; keyPrefix: string; checkpointDb: number };
  chat: {
    checkpointTtlS: number;
    cleanupCron: string;
    waitMs: number;
    /** Turns per user per minute; 0 turns the limit off. */
    ratePerMinute: number;
    workerConcurrency: number;
    providerConcurrency: number;
    historyBudgetChars: number;
  };
  /** The tool-calling loop of a chat turn. */
  agent: {
    /** Model calls per turn; the last is offered no tools. */
    maxSteps: number;
    /** A turn (all its provider and tool calls) is abandoned after this. */
    timeoutMs: number;
    toolTimeoutMs: number;
    /** Characters of one tool result the model sees. */
    resultChars: number;
  };
  /** Sessions with MCP tool servers. */
  mcp: { connectionTtlMs: number; connectTimeoutMs: number };
  /** MCP server health checks. */
  health: { cron: string; timeoutMs: number; fall: number; rise: number; concurrency: number };
  providers: { timeoutMs: number; maxRetries: number; ollamaHost: string; customModules: string[] };
  http: {
    host: string;
    port: number;
    /** Proxies whose X-Forwarded-For is believed: addresses, CIDRs or `loopback`. */
    trustProxy: string[];
    drainDelayMs: number;
    shutdownTimeoutMs: number;
    /** Where `aiops worker` serves /metrics (the API serves it on its own port); none when unset. */
    metricsPort?: number;
  };
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
}

/** Parses `env` against `schema`; a bad variable fails start-up with every problem named. */
function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new StartupError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/** Parses the environment once; a bad variable fails start-up with every problem named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnv(EnvSchema, env);
  return {
    redis: { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX, checkpointDb: e.CHECKPOINT_REDIS_DB },
    chat: {
      checkpointTtlS: e.CHECKPOINT_TTL_S,
      cleanupCron: e.CHECKPOINT_CLEANUP_CRON,
      waitMs: e.CHAT_WAIT_S * 1_000,
      ratePerMinute: e.CHAT_RATE_PER_MIN,
      workerConcurrency: e.CHAT_WORKER_CONCURRENCY,
      providerConcurrency: e.CHAT_PROVIDER_CONCURRENCY,
      historyBudgetChars: e.CHAT_HISTORY_BUDGET_CHARS,
    },
    agent: {
      maxSteps: e.AGENT_MAX_STEPS,
      timeoutMs: e.AGENT_TIMEOUT_S * 1_000,
      toolTimeoutMs: e.MCP_TOOL_TIMEOUT_S * 1_000,
      resultChars: e.MCP_TOOL_RESULT_CHARS,
    },
    mcp: { connectionTtlMs: e.MCP_CONNECTION_TTL_S * 1_000, connectTimeoutMs: e.MCP_CONNECT_TIMEOUT_S * 1_000 },
    health: { cron: e.HEALTH_CRON, timeoutMs: e.HEALTH_TIMEOUT_MS, fall: e.HEALTH_FALL, rise: e.HEALTH_RISE, concurrency: e.HEALTH_CONCURRENCY },
    providers: {
      timeoutMs: e.PROVIDER_TIMEOUT_S * 1_000,
      maxRetries: e.PROVIDER_MAX_RETRIES,
      ollamaHost: e.OLLAMA_HOST,
      customModules: e.CUSTOM_PROVIDERS.split(',').map((item) => item.trim()).filter(Boolean),
    },
    http: {
      host: e.HOST,
      port: e.PORT,
      trustProxy: e.TRUST_PROXY.split(',').map((entry) => entry.trim()).filter(Boolean),
      drainDelayMs: e.DRAIN_DELAY_MS,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      ...(e.METRICS_PORT === undefined ? {} : { metricsPort: e.METRICS_PORT }),
    },
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
  };
}

// ---------------------------------------------------------------------------------------------
// Platform tool server (MCP): `aiops mcp`. Read by loadPlatformConfig; the README section
// "Platform tool server (MCP)" lists each variable with its default.

const platformFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'TRUE', 'FALSE', 'True', 'False'])
  .transform((value) => ['true', '1', 'yes'].includes(value.toLowerCase()));
const optionalUrl = z.string().url().optional().or(z.literal('').transform(() => undefined));

/** Embedding model and vector store: shared by the tool server and the knowledge-base workers. */
const VECTOR_ENV = {
  EMBEDDING_MODEL: z.string().min(1).default('Xenova/all-MiniLM-L6-v2'),
  EMBEDDING_MODEL_PATH: z.string().optional(),
  QDRANT_URL: optionalUrl,
  QDRANT_API_KEY: z.string().optional(),
};

const PlatformEnvSchema = z.object({
  PLATFORM_ENV: z.enum(['local', 'nonprod', 'prod']).default('local'),
  PLATFORM_URL_LOCAL: z.string().url().default('http://127.0.0.1:8080'),
  PLATFORM_URL_NONPROD: optionalUrl,
  PLATFORM_URL_PROD: optionalUrl,
  PLATFORM_TOKEN: z.string().optional(),
  PLATFORM_VERIFY_TLS: platformFlag.default(true),
  PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  PLATFORM_READ_ONLY: platformFlag.default(false),
  PLATFORM_SPEC_PATH: z.string().startsWith('/').default('/api/docs/?format=openapi'),
  PLATFORM_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1_024).default(200_000),
  PLATFORM_INDEX_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  TOOL_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and "_"')
    .default('platform'),
  DEFAULT_SEARCH_RESULTS: z.coerce.number().int().min(1).max(50).default(5),
  ...VECTOR_ENV,
  TELEMETRY_API_KEY: z.string().default('disable'),
});

export interface PlatformConfig {
  env: 'local' | 'nonprod' | 'prod';
  /** The platform chosen by PLATFORM_ENV, without a trailing slash. */
  url: string;
  token?: string;
  verifyTls: boolean;
  timeoutMs: number;
  readOnly: boolean;
  specPath: string;
  maxResponseBytes: number;
  indexWaitMs: number;
  toolPrefix: string;
  defaultResults: number;
  /** `none` turns dense retrieval off (lexical only). */
  embeddingModel: string;
  embeddingModelPath?: string;
  qdrant?: { url: string; apiKey?: string };
  /** Anything but `disable` is accepted and ignored: this service never sends telemetry. */
  telemetryApiKey: string;
}

/** The tool server's settings; like loadConfig, a bad variable fails start-up with every problem named. */
export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const e = parseEnv(PlatformEnvSchema, env);
  const urls = { local: e.PLATFORM_URL_LOCAL, nonprod: e.PLATFORM_URL_NONPROD, prod: e.PLATFORM_URL_PROD };
  const url = urls[e.PLATFORM_ENV];
  if (!url) throw new StartupError(`invalid configuration: PLATFORM_ENV is ${e.PLATFORM_ENV} but PLATFORM_URL_${e.PLATFORM_ENV.toUpperCase()} is not set`);
  return {
    env: e.PLATFORM_ENV,
    url: url.replace(/\/+$/, ''),
    token: e.PLATFORM_TOKEN || undefined,
    verifyTls: e.PLATFORM_VERIFY_TLS,
    timeoutMs: e.PLATFORM_TIMEOUT_MS,
    readOnly: e.PLATFORM_READ_ONLY,
    specPath: e.PLATFORM_SPEC_PATH,
    maxResponseBytes: e.PLATFORM_MAX_RESPONSE_BYTES,
    indexWaitMs: e.PLATFORM_INDEX_WAIT_MS,
    toolPrefix: e.TOOL_PREFIX,
    defaultResults: e.DEFAULT_SEARCH_RESULTS,
    embeddingModel: e.EMBEDDING_MODEL,
    embeddingModelPath: e.EMBEDDING_MODEL_PATH || undefined,
    qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY || undefined } : undefined,
    telemetryApiKey: e.TELEMETRY_API_KEY,
  };
}

// ---------------------------------------------------------------------------------------------
// Knowledge base: Git repositories cloned, chunked and embedded by `index` jobs (or in the tool
// server's process without Redis). The README section "Knowledge base" lists each variable.

const KnowledgeEnvSchema = z.object({
  ...VECTOR_ENV,
  GIT_BASE_URL: z.string().url().default('https://github.com'),
  GIT_TOKEN: z.string().optional(),
  GIT_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(300),
  MAX_FILE_BYTES: z.coerce.number().int().min(1_024).default(1_000_000),
  KB_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).max(20_000).default(1_500),
  KB_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(5_000).default(200),
  KB_JOB_WAIT_S: z.coerce.number().int().min(1).default(1_800),
  KB_INDEX_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  REDIS_URL: optionalUrl,
  REDIS_KEY_PREFIX: EnvSchema.shape.REDIS_KEY_PREFIX,
});

export interface KnowledgeConfig {
  gitBaseUrl: string;
  /** Sent as an HTTP header to the Git remote only; never stored or logged. */
  gitToken?: string;
  gitTimeoutMs: number;
  maxFileBytes: number;
  chunkMaxChars: number;
  chunkOverlapChars: number;
  /** How long tools and the CLI wait for an index job. */
  jobWaitMs: number;
  /** Index jobs at once per worker. */
  indexConcurrency: number;
  /** `none` turns dense retrieval off (lexical only). */
  embeddingModel: string;
  embeddingModelPath?: string;
  qdrant?: { url: string; apiKey?: string };
  /** Set when REDIS_URL is: the tool server then runs index work as `index` queue jobs. */
  queue?: { redisUrl: string; keyPrefix: string };
}

/** The knowledge base's settings; a bad variable fails start-up with every problem named. */
export function loadKnowledgeConfig(env: NodeJS.ProcessEnv = process.env): KnowledgeConfig {
  const e = parseEnv(KnowledgeEnvSchema, env);
  if (e.KB_CHUNK_OVERLAP_CHARS >= e.KB_CHUNK_MAX_CHARS) throw new StartupError('invalid configuration: KB_CHUNK_OVERLAP_CHARS must be below KB_CHUNK_MAX_CHARS');
  return {
    gitBaseUrl: e.GIT_BASE_URL.replace(/\/+$/, ''),
    gitToken: e.GIT_TOKEN || undefined,
    gitTimeoutMs: e.GIT_TIMEOUT_S * 1_000,
    maxFileBytes: e.MAX_FILE_BYTES,
    chunkMaxChars: e.KB_CHUNK_MAX_CHARS,
    chunkOverlapChars: e.KB_CHUNK_OVERLAP_CHARS,
    jobWaitMs: e.KB_JOB_WAIT_S * 1_000,
    indexConcurrency: e.KB_INDEX_CONCURRENCY,
    embeddingModel: e.EMBEDDING_MODEL,
    embeddingModelPath: e.EMBEDDING_MODEL_PATH || undefined,
    qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY || undefined } : undefined,
    queue: e.REDIS_URL ? { redisUrl: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX } : undefined,
  };
}
