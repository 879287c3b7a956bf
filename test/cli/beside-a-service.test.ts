import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { QUEUE_NAMES } from '../../src/roles/job-catalogue.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { GUARDED_PORTS } from '../support/loopback-guard.mjs';
import { runAiops, startAiops, suiteEnvironment, type RunningProcess } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

/**
 * The suite's tests that run the CLI, those whose commands could land on a service's defaults: with
 * REDIS_URL unset, the default DATA_DIR or working directory, or the default ports.
 */
const CLI_TEST_FILES = [
  'test/cli/cli.test.ts',
  'test/knowledge/index-tracing.test.ts',
  'test/knowledge/relative-data-dir.test.ts',
  'test/security/tool-server.test.ts',
  'test/tool-server/transports.test.ts',
];

/**
 * `npm test` beside `aiops start`: no test reaches a service it did not start. The loopback guard
 * (support/loopback-guard.mjs) keeps every process of the suite from the default ports; here a
 * service of the test's own stands where a service on the defaults would, for the suite's CLI
 * tests run beside it, and its keys must be as they were.
 */
describe('The suite beside a running service', function () {
  this.timeout(600_000);
  let redis: TestRedis;
  let dataDir: string;
  let apiPort: number;
  let service: RunningProcess;

  /** Where the processes given it find a service on the defaults: this test's. */
  const serviceOnDefaults = () => ({
    AIOPS_TEST_SERVICE_PORTS: GUARDED_PORTS.map((port) => `${port}=${port === loadConfig({}).http.port ? apiPort : redis.port}`).join(','),
  });

  /** Every key of the service's Redis, in every database, with a digest of its value. */
  async function keys(): Promise<Record<string, string>> {
    const seen: Record<string, string> = {};
    for (let db = 0; db < 16; db++) {
      const client = redis.client.duplicate({ db });
      try {
        for (const key of await client.keys('*')) {
          const value = await client.dump(key);
          seen[`${db}/${key}`] = createHash('sha256')
            .update(value ?? '')
            .digest('hex');
        }
      } finally {
        client.disconnect();
      }
    }
    return seen;
  }

  /** The keys the service keeps (records, tokens, the knowledge base), not those its queues turn over as it runs. */
  async function serviceKeys(): Promise<Record<string, string>> {
    const queues = new RegExp(`^\\d+/\\{[^}]+\\}:(${QUEUE_NAMES.join('|')}):`);
    return Object.fromEntries(Object.entries(await keys()).filter(([key]) => !queues.test(key)));
  }

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-beside-'));
    apiPort = await freePort();
    service = startAiops(
      ['start', '--port', String(apiPort)],
      {
        REDIS_URL: redis.url,
        DATA_DIR: dataDir,
        EMBEDDING_MODEL: 'none',
        KB_OFFICIAL_REPOS: 'false',
        DRAIN_DELAY_MS: '0',
        LOG_LEVEL: 'info',
      },
      dataDir,
    );
    await service.waitForLine(/"message":"api listening"/, 60_000);
  });
  after(async () => {
    await service?.stop();
    await redis?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("keeps the suite's processes from the defaults of the configuration: its Redis and API ports", () => {
    const defaults = loadConfig({});
    expect(defaults.redis.topology.kind).to.equal('single');
    const redisPort = Number(new URL((defaults.redis.topology as { url: string }).url).port);
    expect(GUARDED_PORTS).to.include.members([redisPort, defaults.http.port, 6379]);
  });

  it('would see a command that lands on the defaults: it writes into the service standing there', async () => {
    const before = await serviceKeys();
    const run = await runAiops(['token', 'create', '--user', 'on-the-defaults'], { REDIS_URL: '', ...serviceOnDefaults() });
    expect(run.code, run.stderr).to.equal(0);
    const after = await serviceKeys();
    expect(Object.keys(after).length, 'the service keeps keys of its own').to.be.greaterThan(0);
    expect(after).to.not.deep.equal(before);
  });

  it("runs the suite's CLI tests beside it, and they leave its keys as they were", async () => {
    const before = await serviceKeys();
    const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
    const args = ['--no-config', '--node-option', 'import=tsx', '--require', 'test/support/integration-tier.ts'];
    const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [mocha, ...args, '--timeout', '60000', '--exit', '--extension', 'test.ts', ...CLI_TEST_FILES], {
        cwd: packagePath('.'),
        env: suiteEnvironment(serviceOnDefaults()),
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
    expect(run.code, run.output.slice(-4_000)).to.equal(0);
    expect(await serviceKeys()).to.deep.equal(before);
  });
});
