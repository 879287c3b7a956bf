import { expect } from 'chai';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import which from 'which';
import { until } from '../support/until.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/private-redis.fixture.ts', import.meta.url));

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('a private redis-server', function () {
  this.timeout(30_000);

  it('stops when the process that started it is killed with SIGKILL', async function () {
    if (!which.sync('setpriv', { nothrow: true })) this.skip(); // util-linux; the kernel's parent-death signal is Linux only
    const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-orphan-'));
    try {
      const starter = fork(FIXTURE, { env: { ...process.env, FIXTURE_DIR: dir }, execArgv: ['--import', 'tsx'], stdio: 'ignore' });
      const [port] = (await once(starter, 'message')) as [number];
      expect(await listening(port)).to.equal(true);
      starter.kill('SIGKILL');
      await until(async () => !(await listening(port)), 10_000, 'the orphaned redis-server to stop');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
