import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { packagePath } from '../../src/kernel/package-root.js';
import { conformanceNode } from '../support/conformance-node.js';
import { startAiops, type RunningProcess } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { tempDirPerTest } from '../support/temp-dir.js';
import { startSigningProxy } from './conformance/signing-proxy.js';

const run = promisify(execFile);
const CLI = packagePath('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES = packagePath('test/tool-server/conformance/expected-failures.yml');
const TOKEN = 'conformance-static-token-0123456789';

describe('the official MCP conformance suite, server scenarios, against `aiops mcp --http`', function () {
  this.timeout(900_000);
  let redis: TestRedis;
  let node: string;
  let server: RunningProcess;
  let proxy: Awaited<ReturnType<typeof startSigningProxy>>;
  let dataDir: string;
  const output = tempDirPerTest('conformance-server');

  before(async () => {
    [redis, node, dataDir] = await Promise.all([startTestRedis(), conformanceNode(), mkdtemp(path.join(tmpdir(), 'aiops-conformance-'))]);
    // The service as its own platform (the default): its description ships with it, so no platform runs.
    server = startAiops(['mcp', '--http', '0'], {
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      MCP_HTTP_TOKEN: TOKEN,
    });
    const { port } = JSON.parse(await server.waitForLine(/"mcp server listening on http"/, 60_000)) as { port: number };
    proxy = await startSigningProxy(`http://127.0.0.1:${port}`, `Bearer ${TOKEN}`);
  });
  after(async () => {
    await proxy?.close();
    await server?.stop();
    await redis?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('passes every scenario of the active suite but the expected failures, and each of those still fails', async () => {
    const outcome = await run(
      node,
      [
        CLI,
        'server',
        '--url',
        `${proxy.url}/mcp`,
        '--spec-version',
        '2025-11-25',
        '--expected-failures',
        EXPECTED_FAILURES,
        '-o',
        output(),
      ],
      { timeout: 600_000 },
    ).then(
      ({ stdout }) => ({ ok: true, stdout }),
      (error: { stdout?: string; stderr?: string }) => ({ ok: false, stdout: `${error.stdout ?? ''}\n${error.stderr ?? ''}` }),
    );
    expect(outcome.ok, outcome.stdout).to.equal(true);
    // The scenarios that pass, named: a scenario that stops running (not only one that fails) is noticed.
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'dns-rebinding-protection',
      'server-sse-multiple-streams',
    ]) {
      expect(outcome.stdout).to.match(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
  });
});
