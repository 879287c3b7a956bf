import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import which from 'which';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { aiopsArgs, suiteEnvironment } from '../support/processes.js';

interface Run {
  code: number | null;
  stderr: string[];
  stdout: string[];
}

/** `aiops ARGS` to its end, in a clean environment plus `env` (no test's variables leak in). */
function aiops(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    // The working directory is the operator's, not the project's.
    const child = spawn(process.execPath, aiopsArgs(args), {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_OPTIONS: suiteEnvironment().NODE_OPTIONS ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: stdout.split('\n').filter(Boolean), stderr: stderr.split('\n').filter(Boolean) }));
  });
}

/** No stack trace, no dump of an error object: what an operator sees is meant to be read. */
function expectReadable(lines: string[]): void {
  for (const line of lines) expect(line).to.not.match(/^\s+at |node:internal|node_modules|\{$/);
}

describe('settings an operator gets wrong', function () {
  this.timeout(120_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-settings-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('stop start-up with exit 1 and one line per bad variable, before anything starts', async () => {
    writeFileSync(path.join(dir, 'a-file'), '');
    const redisPort = await freePort();
    const bad = {
      HEALTH_CRON: 'not a cron',
      CHECKPOINT_CLEANUP_CRON: '99 * * * *',
      CUSTOM_PROVIDERS: './nope.mjs',
      TRUST_PROXY: 'garbage',
      HOST: 'not a host!',
      PORT: '70000',
    };
    const run = await aiops(['start'], { ...bad, REDIS_URL: `redis://127.0.0.1:${redisPort}` }, dir);
    expect(run.code, run.stderr.join('\n')).to.equal(1);
    expectReadable(run.stderr);
    for (const name of Object.keys(bad)) {
      expect(
        run.stderr.filter((line) => line.startsWith(`aiops: invalid configuration: ${name}:`)),
        name,
      ).to.have.length(1);
    }
    expect(run.stderr).to.have.length(Object.keys(bad).length);
    // Nothing started: no log line, no private Redis.
    expect(run.stdout).to.deep.equal([]);
    expect(await listening(redisPort)).to.equal(false);
  });

  it('names a data folder that cannot be written and a custom provider module that is not there', async () => {
    writeFileSync(path.join(dir, 'a-file'), '');
    const run = await aiops(
      ['worker'],
      { DATA_DIR: path.join(dir, 'a-file', 'data'), CUSTOM_PROVIDERS: 'no-such-provider-package,./missing.mjs' },
      dir,
    );
    expect(run.code).to.equal(1);
    expectReadable(run.stderr);
    expect(run.stderr).to.deep.equal([
      'aiops: invalid configuration: CUSTOM_PROVIDERS: no-such-provider-package: no such package',
      'aiops: invalid configuration: CUSTOM_PROVIDERS: ./missing.mjs: no such file',
      `aiops: invalid configuration: DATA_DIR: ${path.join(dir, 'a-file', 'data')} cannot be a folder: ${path.join(dir, 'a-file')} is a file`,
    ]);
  });

  it('a port that cannot be bound is one line and exit 1', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      // No Redis needed: the API starts without one and would answer 503.
      const run = await aiops(['api', '--port', String(port)], { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, DATA_DIR: dir }, dir);
      expect(run.code).to.equal(1);
      expectReadable(run.stderr);
      expect(run.stderr).to.deep.equal([
        `aiops: the API cannot listen on 127.0.0.1:${port}: the port is in use by another process (see HOST and the port setting)`,
      ]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a custom provider module that fails to load stops aiops start, its API and its private Redis with it', async function () {
    if (!which.sync('redis-server', { nothrow: true })) this.skip();
    writeFileSync(path.join(dir, 'broken-provider.mjs'), "throw new Error('this provider module is broken');\n");
    const redisPort = await freePort();
    const apiPort = await freePort();
    const run = await aiops(
      ['start', '--port', String(apiPort)],
      {
        CUSTOM_PROVIDERS: './broken-provider.mjs',
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        DATA_DIR: path.join(dir, 'data'),
        DRAIN_DELAY_MS: '0',
      },
      dir,
    );
    expect(run.code).to.equal(1);
    expectReadable(run.stderr);
    expect(run.stderr.join('\n')).to.include('broken-provider.mjs').and.to.include('this provider module is broken');
    expect(await listening(apiPort)).to.equal(false);
    expect(await listening(redisPort)).to.equal(false);
  });
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
