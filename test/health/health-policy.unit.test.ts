import { expect } from 'chai';
import { nextStatus } from '../../src/health/health-policy.js';
import { HealthStatus } from '../../src/records/status.js';

const THRESHOLDS = { fall: 2, rise: 3 };

describe(nextStatus.name, () => {
  it('keeps a Healthy server Healthy until `fall` consecutive failures', () => {
    expect(nextStatus(HealthStatus.Healthy, false, { passes: 0, fails: 1 }, THRESHOLDS)).to.equal(HealthStatus.Healthy);
    expect(nextStatus(HealthStatus.Healthy, false, { passes: 0, fails: 2 }, THRESHOLDS)).to.equal(HealthStatus.Unhealthy);
    expect(nextStatus(HealthStatus.Healthy, true, { passes: 5, fails: 0 }, THRESHOLDS)).to.equal(HealthStatus.Healthy);
  });

  it('keeps an Unhealthy server Unhealthy until `rise` consecutive passes', () => {
    expect(nextStatus(HealthStatus.Unhealthy, true, { passes: 2, fails: 0 }, THRESHOLDS)).to.equal(HealthStatus.Unhealthy);
    expect(nextStatus(HealthStatus.Unhealthy, true, { passes: 3, fails: 0 }, THRESHOLDS)).to.equal(HealthStatus.Healthy);
    expect(nextStatus(HealthStatus.Unhealthy, false, { passes: 0, fails: 9 }, THRESHOLDS)).to.equal(HealthStatus.Unhealthy);
  });

  it('decides a new (Unknown) server on its first result, and never touches Maintenance', () => {
    expect(nextStatus(HealthStatus.Unknown, true, { passes: 1, fails: 0 }, THRESHOLDS)).to.equal(HealthStatus.Healthy);
    expect(nextStatus(HealthStatus.Unknown, false, { passes: 0, fails: 1 }, THRESHOLDS)).to.equal(HealthStatus.Unhealthy);
    expect(nextStatus(HealthStatus.Maintenance, false, { passes: 0, fails: 50 }, THRESHOLDS)).to.equal(HealthStatus.Maintenance);
  });
});
