import { HealthStatus } from '../records/status.js';

export interface HealthThresholds {
  /** Consecutive failures that turn a Healthy server Unhealthy (HEALTH_FALL). */
  fall: number;
  /** Consecutive passes that turn an Unhealthy server Healthy (HEALTH_RISE). */
  rise: number;
}

/** Consecutive results so far, this check included; one of the two is always 0. */
export interface Streak {
  passes: number;
  fails: number;
}

/**
 * The status after a check, HAProxy-style: a Healthy server turns Unhealthy after `fall`
 * consecutive failures, an Unhealthy one Healthy after `rise` consecutive passes. A server not yet
 * known (Unknown, new) takes the first result at once, so it is usable (or known broken) right
 * after it is registered. Maintenance stays.
 */
export function nextStatus(current: string, passed: boolean, streak: Streak, { fall, rise }: HealthThresholds): string {
  switch (current) {
    case HealthStatus.Maintenance:
      return current;
    case HealthStatus.Healthy:
      return !passed && streak.fails >= fall ? HealthStatus.Unhealthy : current;
    case HealthStatus.Unhealthy:
      return passed && streak.passes >= rise ? HealthStatus.Healthy : current;
    default:
      return passed ? HealthStatus.Healthy : HealthStatus.Unhealthy;
  }
}
