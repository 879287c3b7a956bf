import type { Streak } from './health-policy.js';

/** Port: consecutive pass and failure counts per server, shared by every worker. */
export interface HealthStreakStore {
  /** Counts one result and answers the streak including it (atomically). */
  record(serverId: string, passed: boolean): Promise<Streak>;
  /** Drops the counts of a deleted server. */
  forget(serverId: string): Promise<void>;
}
