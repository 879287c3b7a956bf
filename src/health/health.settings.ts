import { z } from 'zod';
import { cron, settings, type SectionsOf } from '../kernel/config/settings.js';

/** MCP server health checks. */
export const HEALTH_SETTINGS = settings({
  env: {
    HEALTH_CRON: cron.default('*/30 * * * * *'),
    HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    HEALTH_FALL: z.coerce.number().int().min(1).max(100).default(2),
    HEALTH_RISE: z.coerce.number().int().min(1).max(100).default(2),
    HEALTH_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
  },
  read: (e) => ({
    health: {
      cron: e.HEALTH_CRON,
      timeoutMs: e.HEALTH_TIMEOUT_MS,
      fall: e.HEALTH_FALL,
      rise: e.HEALTH_RISE,
      concurrency: e.HEALTH_CONCURRENCY,
    },
  }),
});

export type HealthSettings = SectionsOf<typeof HEALTH_SETTINGS>;
