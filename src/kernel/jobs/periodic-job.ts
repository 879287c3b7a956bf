import { isCronExpression } from '../config/setting-checks.js';
import { StartupError } from '../errors.js';
import type { JobKind, JobOf } from './job-kind.js';

/**
 * A periodic job as its component declares it for its queue (a queue has any number): the job as
 * the queue's scheduler adds it at every time of the cron `pattern`, and the published name of the
 * setting that gives the pattern, said when it is wrong. Every worker of the queue keeps it set.
 */
export interface PeriodicJob<J extends JobKind> {
  job: JobOf<J>;
  setting: string;
  pattern: string;
}

/** Fails start-up on a cron pattern the job schedulers cannot read (configuration checks it too; a configuration built in code may not). */
export function assertCronSettings(periodic: ReadonlyArray<PeriodicJob<JobKind>>): void {
  for (const { setting, pattern } of periodic) {
    if (!isCronExpression(pattern)) throw new StartupError(`invalid configuration: ${setting} '${pattern}' is not a cron expression`);
  }
}
