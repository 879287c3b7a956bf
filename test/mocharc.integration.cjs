// The integration tier: every other *.test.ts, over private redis-servers, child processes and
// local HTTP servers (see test/README.md).
module.exports = {
  ...require('../.mocharc.json'),
  spec: ['test/**/*.test.ts'],
  ignore: ['test/**/*.unit.test.ts'],
};
