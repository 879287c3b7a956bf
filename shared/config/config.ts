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
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: logLevel.default('info'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  redis: { url: string; keyPrefix: string; checkpointDb: number };
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
    http: { host: e.HOST, port: e.PORT },
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
  };
}
