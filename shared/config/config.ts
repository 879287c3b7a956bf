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
  CHAT_MAX_TOOL_STEPS: z.coerce.number().int().min(1).max(100).default(8),
  CHAT_TURN_TIMEOUT_S: z.coerce.number().int().min(1).default(300),
  PROVIDER_TIMEOUT_S: z.coerce.number().int().min(1).default(60),
  PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  OLLAMA_HOST: z.string().url().default('http://127.0.0.1:11434'),
  CUSTOM_PROVIDERS: z.string().default(''),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
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
    maxToolSteps: number;
    turnTimeoutMs: number;
  };
  providers: { timeoutMs: number; maxRetries: number; ollamaHost: string; customModules: string[] };
  http: { host: string; port: number };
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
}

/** Parses the environment once; a bad variable fails start-up with every problem named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new StartupError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
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
      maxToolSteps: e.CHAT_MAX_TOOL_STEPS,
      turnTimeoutMs: e.CHAT_TURN_TIMEOUT_S * 1_000,
    },
    providers: {
      timeoutMs: e.PROVIDER_TIMEOUT_S * 1_000,
      maxRetries: e.PROVIDER_MAX_RETRIES,
      ollamaHost: e.OLLAMA_HOST,
      customModules: e.CUSTOM_PROVIDERS.split(',').map((item) => item.trim()).filter(Boolean),
    },
    http: { host: e.HOST, port: e.PORT },
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
  };
}
