import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { packagePath } from '../../src/kernel/package-root.js';
import { conformanceNode } from '../support/conformance-node.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { tempDirPerTest } from '../support/temp-dir.js';

const run = promisify(execFile);
const CLI = packagePath('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const DRIVER = packagePath('test/mcp-client/conformance/driver.ts');
const EXPECTED_FAILURES = packagePath('test/mcp-client/conformance/expected-failures.yml');
/** Revisions whose client scenarios run: the current one and the older one it keeps compatible; the client credentials grant with a secret is the one extension the service offers. */
const REVISIONS = ['2025-11-25', '2025-03-26'];
const EXTENSIONS = ['auth/client-credentials-basic'];

describe('the official MCP conformance suite, client scenarios, against the agent client', function () {
  this.timeout(900_000);
  let redis: TestRedis;
  let node: string;
  const output = tempDirPerTest('conformance');

  before(async () => {
    redis = await startTestRedis();
    node = await conformanceNode();
  });
  after(async () => {
    await redis?.destroy();
  });

  /** The scenarios `list --client` names with a revision we speak, as `name [revisions]` lines say. */
  const scenarios = async (): Promise<string[]> => {
    const { stdout } = await run(node, [CLI, 'list', '--client']);
    return [...stdout.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)]
      .filter(([, name, revisions]) => EXTENSIONS.includes(name!) || revisions!.split(',').some((revision) => REVISIONS.includes(revision)))
      .map(([, name]) => name!);
  };

  it('passes every scenario but the expected failures, and each of those still fails', async () => {
    const names = await scenarios();
    expect(names).to.include.members(['initialize', 'tools_call', 'auth/metadata-default', 'auth/scope-step-up', 'auth/pre-registration']);
    const outcome = (scenario: string) =>
      run(
        node,
        [
          CLI,
          'client',
          '--command',
          `${process.execPath} --import tsx ${DRIVER}`,
          '--scenario',
          scenario,
          '--expected-failures',
          EXPECTED_FAILURES,
          '-o',
          output(),
        ],
        { env: { ...process.env, AIOPS_CONFORMANCE_REDIS_URL: redis.url }, timeout: 120_000 },
      ).then(
        () => 'ok',
        (error: { stdout?: string }) =>
          `${scenario}: ${(error.stdout ?? '')
            .split('\n')
            .filter((line) => /FAILURE|stale|Unexpected|✗/.test(line))
            .join(' | ')}`,
      );
    // Two at a time: each scenario is mostly a driver process starting, and each driver keeps its
    // records under a key prefix of its own, so two never meet.
    const outcomes: string[] = [];
    const queue = [...names];
    const lane = async () => {
      for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
        const result = await outcome(scenario);
        if (result !== 'ok') outcomes.push(result);
      }
    };
    await Promise.all([lane(), lane()]);
    expect(outcomes).to.deep.equal([]);
  });
});
