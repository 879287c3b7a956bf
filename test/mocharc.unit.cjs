// The unit tier: *.unit.test.ts, fakes instead of Redis, no processes (test/support/unit-tier.ts
// refuses to start one), seconds in all. A test waiting on something that never comes fails well
// before the integration tier's limit, yet a loaded machine (embedding a spec on two busy cores
// has taken over 2 s) does not fail a correct test: speed is the benchmarks' business.
module.exports = {
  ...require('../.mocharc.json'),
  spec: ['test/**/*.unit.test.ts'],
  require: ['test/support/unit-tier.ts'],
  timeout: 10000,
};
