import { z } from 'zod';
import { settings } from '../kernel/config/settings.js';

/** Planning a write before anyone approves it. */
export const WRITE_PLANS_SETTINGS = settings({
  env: {
    WRITE_MAX_OBJECTS: z.coerce.number().int().min(1).max(1_000).default(25),
  },
  read: (e) => ({
    writePlans: {
      /** WRITE_MAX_OBJECTS: a planned write changing or deleting more objects is refused before anyone is asked. */
      maxObjects: e.WRITE_MAX_OBJECTS,
    },
  }),
});
