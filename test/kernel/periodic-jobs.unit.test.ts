import { expect } from 'chai';
import { schedulesOf } from '../../src/kernel/bullmq/job-schedules.js';
import { StartupError } from '../../src/kernel/errors.js';
import type { JobOf } from '../../src/kernel/jobs/job-kind.js';
import { assertCronSettings, type PeriodicJob } from '../../src/kernel/jobs/periodic-job.js';

type SampleJob =
  | { name: 'sample-cleanup'; queue: 'sample'; data: Record<string, never>; result: null; progress: never }
  | { name: 'sample-report'; queue: 'sample'; data: { scope: string }; result: null; progress: never };

describe('periodic jobs, any number per queue', () => {
  const periodic: Array<PeriodicJob<SampleJob>> = [
    { job: { name: 'sample-cleanup', data: {} }, setting: 'SAMPLE_CLEANUP_CRON', pattern: '17 * * * *' },
    { job: { name: 'sample-report', data: { scope: 'all' } }, setting: 'SAMPLE_REPORT_CRON', pattern: '0 6 * * *' },
  ];

  it("sets each one in its queue's scheduler, with its own pattern", async () => {
    const set: Array<{ job: JobOf<SampleJob>; pattern: string }> = [];
    const schedules = schedulesOf<SampleJob>({ schedule: async (job, pattern) => void set.push({ job, pattern }) }, periodic);
    await Promise.all(schedules.map((schedule) => schedule.set()));
    expect(set).to.deep.equal(periodic.map(({ job, pattern }) => ({ job, pattern })));
    expect(schedules.map(({ setting }) => setting)).to.deep.equal(['SAMPLE_CLEANUP_CRON', 'SAMPLE_REPORT_CRON']);
  });

  it('refuses a pattern the schedulers cannot read, naming its setting', () => {
    expect(() => assertCronSettings(periodic)).not.to.throw();
    const wrong = [...periodic, { ...periodic[1]!, setting: 'SAMPLE_AUDIT_CRON', pattern: 'daily' }];
    expect(() => assertCronSettings(wrong)).to.throw(
      StartupError,
      "invalid configuration: SAMPLE_AUDIT_CRON 'daily' is not a cron expression",
    );
  });
});
