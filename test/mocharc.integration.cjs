// The integration tier: every other *.test.ts, over private redis-servers, child processes and
// local HTTP servers (see test/README.md).
const { readdirSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/**
 * Files run in parallel, each in a worker process: their servers listen on free ports and keep
 * private data. Most of a file's time is spent waiting on a child process, a failover or a browser,
 * so a third worker on two cores keeps them busy. `--jobs N` on the command line overrides it.
 */
const JOBS = os.availableParallelism() + 1;

/**
 * Every file that takes 8 s or more alone, so that none of them is left to run alone at the end:
 * first those that mostly wait (a 30 s event stream through HAProxy, Sentinel failovers), while
 * `npm test`'s type check and lint keep the cores busy, then the others, longest first.
 */
const LONGEST_FIRST = [
  // The suite's CLI tests again, beside a service: minutes of child processes.
  'test/cli/beside-a-service.test.ts',
  'test/infra/haproxy-timeouts.test.ts',
  'test/infra/redis-sentinel-crash.test.ts',
  'test/infra/redis-sentinel.test.ts',
  'test/cli/cli.test.ts',
  'test/web/web-pages.test.ts',
  'test/web/chat-details.test.ts',
  'test/cli/shutdown.test.ts',
  'test/web/admin-forms.test.ts',
  'test/infra/haproxy.test.ts',
  'test/chat/chat-worker-kill.test.ts',
  'test/cli/settings.test.ts',
  'test/infra/redis-cluster.test.ts',
  'test/chat/slow-provider.test.ts',
  'test/security/load-balancer-retry.test.ts',
  'test/tool-server/kb-tools.test.ts',
  'test/web/chat-platform-token.test.ts',
  'test/web/chat-approvals.test.ts',
  'test/knowledge/kb-locks.test.ts',
  'test/chat/chat-approvals.test.ts',
  'test/security/input-classes.test.ts',
  'test/api/fuzz.test.ts',
];

const files = readdirSync(module.path, { recursive: true })
  .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.unit.test.ts'))
  .map((file) => path.posix.join('test', file.split(path.sep).join('/')))
  .sort();
for (const file of LONGEST_FIRST) {
  if (!files.includes(file)) throw new Error(`test/mocharc.integration.cjs: ${file} is listed in LONGEST_FIRST but does not exist`);
}

module.exports = {
  ...require('../.mocharc.json'),
  spec: [...LONGEST_FIRST, ...files.filter((file) => !LONGEST_FIRST.includes(file))],
  parallel: true,
  jobs: JOBS,
};
