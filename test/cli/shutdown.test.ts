import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import which from 'which';
import { packagePath } from '../../src/kernel/package-root.js';
import { aiopsArgs, suiteEnvironment } from '../support/processes.js';
import { startTestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

const SHUTDOWN_TIMEOUT_MS = 1_000;
const DRAIN_DELAY_MS = 300;
/** What "within SHUTDOWN_TIMEOUT_MS plus a few seconds" allows, on a busy test machine. */
const STOP_LIMIT_MS = DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + 10_000;

interface GroupLeader {
  pid: number;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/**
 * `aiops ARGS` (or `npx aiops ARGS`, as the README runs it) as the leader of its own process group,
 * as a shell runs a foreground job: Ctrl-C is SIGINT to the whole group, and a supervisor's stop is
 * SIGTERM to the group.
 */
function aiopsGroup(args: string[], env: Record<string, string>, launcher: 'node' | 'npx' = 'node'): GroupLeader {
  const [command, commandArgs] = launcher === 'npx' ? ['npx', ['aiops', ...args]] : [process.execPath, aiopsArgs(args)];
  const child = spawn(command, commandArgs, {
    cwd: packagePath('.'),
    env: suiteEnvironment({ SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), DRAIN_DELAY_MS: String(DRAIN_DELAY_MS), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid!,
    lines,
    exited,
    waitForLine: (pattern, timeoutMs = 60_000) =>
      until(async () => lines.some((line) => pattern.test(line)), timeoutMs, `a line matching ${pattern}:\n${lines.slice(-10).join('\n')}`),
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Signals the group (`times` at once) and waits for its leader to exit, failing after STOP_LIMIT_MS. */
async function stopGroup(
  leader: GroupLeader,
  signal: NodeJS.Signals,
  times = 1,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  for (let sent = 0; sent < times; sent++) process.kill(-leader.pid, signal);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running ${STOP_LIMIT_MS} ms after ${signal}:\n${leader.lines.slice(-10).join('\n')}`)),
      STOP_LIMIT_MS,
    );
  });
  try {
    return await Promise.race([leader.exited, limit]);
  } finally {
    clearTimeout(timer);
    // Whatever happened, leave nothing of this group behind.
    try {
      process.kill(-leader.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function messageIndex(lines: string[], message: string): number {
  return lines.findIndex((line) => line.includes(`"message":"${message}"`));
}

describe('stopping the service', function () {
  this.timeout(120_000);
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'aiops-shutdown-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  // `npx aiops start` forwards the terminal's Ctrl-C to aiops, which the terminal signalled too; the
  // shell npx runs aiops through is in the group as well, and must not end npx before aiops has drained.
  for (const [launcher, signal, times] of [
    ['npx', 'SIGINT', 2],
    ['npx', 'SIGTERM', 1],
    ['node', 'SIGTERM', 1],
  ] as const) {
    it(`${launcher === 'npx' ? 'npx ' : ''}aiops start says which Redis it uses and where its pages are, stops every role, then that Redis, and exits 0 on ${signal} to its process group (${times} at once)`, async function () {
      if (!which.sync('redis-server', { nothrow: true })) this.skip();
      const redisPort = await freePort();
      const leader = aiopsGroup(
        ['start', '--port', '0'],
        {
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          DATA_DIR: dataDir,
          REDIS_KEY_PREFIX: 'shutdown',
        },
        launcher,
      );
      await leader.waitForLine(/"message":"periodic jobs scheduled"/);
      expect(await listening(redisPort)).to.equal(true);
      // It says which Redis it uses, and where a person finds it.
      const redisLine = leader.lines.find((line) => line.includes('"message":"using the private redis-server started for this process"'));
      expect(redisLine && JSON.parse(redisLine).redis).to.equal(`redis://127.0.0.1:${redisPort}`);
      const { port } = JSON.parse(leader.lines.find((line) => line.includes('"message":"api listening"'))!) as { port: number };
      const pages = JSON.parse(leader.lines.find((line) => line.includes('"message":"web pages"')) ?? '{}') as Record<string, string>;
      expect(pages).to.include({
        chat: `http://127.0.0.1:${port}/plugins/ai-ops/chat/`,
        admin: `http://127.0.0.1:${port}/plugins/ai-ops/admin/`,
        api_docs: `http://127.0.0.1:${port}/api/docs/`,
      });
      // And which platform the agent acts on: this service itself here, so what to set for the real one.
      expect(leader.lines.some((line) => line.includes(`"message":"platform: the agent acts on this service's own API`))).to.equal(true);
      const unconnected = leader.lines.find((line) => line.includes('"message":"platform not connected: '));
      expect(unconnected, leader.lines.join('\n')).to.include('PLATFORM_URL_PROD');

      const { code } = await stopGroup(leader, signal, times);

      expect(code, leader.lines.slice(-10).join('\n')).to.equal(0);
      // Drained before the command returned: its Redis is already gone.
      expect(await listening(redisPort)).to.equal(false);
      const lines = leader.lines;
      expect(
        lines.filter((line) => /worker error|redis connection lost/.test(line)),
        'no reconnect loop',
      ).to.deep.equal([]);
      const redisStopped = messageIndex(lines, 'private redis-server stopped');
      expect(redisStopped, lines.slice(-10).join('\n')).to.be.greaterThan(-1);
      for (const role of ['api stopped', 'workers stopped']) {
        const at = messageIndex(lines, role);
        expect(at, role).to.be.greaterThan(-1).and.lessThan(redisStopped);
      }
    });
  }

  it('every role exits on SIGTERM when its Redis is gone', async () => {
    const redis = await startTestRedis();
    const env = {
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      REDIS_KEY_PREFIX: 'gone',
      PLATFORM_URL_LOCAL: 'http://127.0.0.1:9',
      EMBEDDING_MODEL: 'none',
    };
    const roles = {
      api: aiopsGroup(['api', '--port', '0'], env),
      worker: aiopsGroup(['worker'], env),
      mcp: aiopsGroup(['mcp', '--http', '0'], env),
    };
    try {
      await Promise.all([
        roles.api.waitForLine(/"message":"api listening"/),
        roles.worker.waitForLine(/"message":"periodic jobs scheduled"/),
        roles.mcp.waitForLine(/"message":"platform tool server configured"/),
      ]);
      // Each role says which Redis it uses once its client is ready: a client never ready would report no lost connection.
      await Promise.all([roles.api, roles.worker].map((leader) => leader.waitForLine(/"message":"using the Redis at REDIS_URL"/)));
    } finally {
      await redis.destroy();
    }
    // Every role that holds Redis connections has noticed and is reconnecting.
    await Promise.all([roles.api, roles.worker].map((leader) => leader.waitForLine(/"message":"redis connection lost"/)));
    const stopped = await Promise.all(Object.values(roles).map((leader) => stopGroup(leader, 'SIGTERM')));
    // 0 when the stop finished; 143 when it was still waiting on the gone Redis at its limit and was cut short.
    for (const [index, role] of Object.keys(roles).entries()) expect(stopped[index]?.code, role).to.be.oneOf([0, 143]);
  });

  it('every role that never reached its Redis says so once per queue, however often it retries, and exits cleanly on SIGTERM', async () => {
    // Where Redis should be, something that takes each connection and drops it at once.
    let attempts = 0;
    const dropper = net.createServer((socket) => {
      attempts += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    const env = {
      REDIS_URL: `redis://127.0.0.1:${(dropper.address() as net.AddressInfo).port}`,
      DATA_DIR: dataDir,
      PLATFORM_URL_LOCAL: 'http://127.0.0.1:9',
      EMBEDDING_MODEL: 'none',
    };
    const roles = {
      api: aiopsGroup(['api', '--port', '0'], env),
      worker: aiopsGroup(['worker'], env),
    };
    try {
      await Promise.all([roles.api.waitForLine(/"message":"api listening"/), roles.worker.waitForLine(/"message":"workers started"/)]);
      // Every client has been turned away several times.
      await until(() => attempts >= 60, 60_000, 'sixty refused connection attempts');
      const stopped = await Promise.all(Object.values(roles).map((leader) => stopGroup(leader, 'SIGTERM')));
      for (const [index, [role, leader]] of Object.entries(roles).entries()) {
        expect(stopped[index]?.code, `${role}:\n${leader.lines.slice(-40).join('\n')}`).to.equal(0);
        expect(
          leader.lines.filter((line) => line.startsWith('aiops:')),
          role,
        ).to.deep.equal([]);
        const reports = leader.lines
          .filter((line) => /"message":"(?:worker|queue|queue events) error"/.test(line))
          .map((line) => {
            const { message, queue } = JSON.parse(line) as { message: string; queue: string };
            return `${message} ${queue}`;
          });
        expect(reports, role).to.deep.equal([...new Set(reports)]);
      }
      expect(
        roles.worker.lines.some((line) => line.includes('"message":"worker error"')),
        'the worker says its queues cannot reach Redis',
      ).to.equal(true);
      // Each role says once that Redis is unreachable and what it does meanwhile.
      for (const [role, leader] of Object.entries(roles)) {
        expect(
          leader.lines.filter((line) => line.includes('"message":"redis unreachable at start-up;')),
          role,
        ).to.have.length(1);
      }
    } finally {
      await Promise.all(Object.values(roles).map((leader) => stopGroup(leader, 'SIGKILL').catch(() => undefined)));
      dropper.close();
    }
  });
});
