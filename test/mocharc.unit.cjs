// The unit tier: *.unit.test.ts, fakes instead of Redis, no processes (test/support/unit-tier.ts
// refuses to start one), seconds in all. A test waiting on something that never comes fails fast.
module.exports = {
  ...require('../.mocharc.json'),
  spec: ['test/**/*.unit.test.ts'],
  require: ['test/support/unit-tier.ts'],
  timeout: 2000,
};
