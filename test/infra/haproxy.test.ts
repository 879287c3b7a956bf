import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { freePortPair, renderHaproxyConfig, renderProductionHaproxyConfig, untilHaproxyServes } from '../support/haproxy.js';
import { startAiops, startProcess, type RunningProcess } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { skipUnlessInstalled } from '../support/installed.js';

const run = promisify(execFile);

interface Reply {
  status: number;
  body: string;
  setCookie: string | undefined;
}

/** One request through HAProxy, optionally from another loopback source address. */
function request(port: number, requestPath: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: requestPath, headers, localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, setCookie: res.headers['set-cookie']?.[0] }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Which instance answered: HAProxy's SERVER cookie names it. */
function servedBy(reply: Reply): string | undefined {
  return /SERVER=([\w-]+)/.exec(reply.setCookie ?? '')?.[1];
}

describe('HAProxy in front of two API instances', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let dir: string;
  let frontPort: number;
  let ports: Record<'web-a' | 'web-b', number>;
  let instances: Record<string, RunningProcess>;
  let haproxy: RunningProcess;
  let config: string;
  let key: string;
  const env = () => ({
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: 'lb',
    TRUST_PROXY: '127.0.0.1',
    DRAIN_DELAY_MS: '2500',
    LOG_LEVEL: 'info',
  });

  function startInstance(name: 'web-a' | 'web-b'): RunningProcess {
    const instance = startAiops(['api', '--port', String(ports[name])], env());
    instances[name] = instance;
    return instance;
  }

  before(async function () {
    skipUnlessInstalled(this, ['haproxy', 'openssl'], 'haproxy openssl');
    redis = await startTestRedis();
    dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-haproxy-'));
    frontPort = await freePortPair();
    ports = { 'web-a': await freePort(), 'web-b': await freePort() };
    // The real file, with only the listening and server addresses changed.
    const { file, original, rendered } = renderHaproxyConfig(dir, { front: frontPort, webA: ports['web-a'], webB: ports['web-b'] });
    expect(rendered.split('\n').filter((line, i) => line !== original.split('\n')[i])).to.have.length(3);
    config = file;

    instances = {};
    await Promise.all([startInstance('web-a'), startInstance('web-b')].map((instance) => instance.waitForLine(/"api listening"/)));
    const created = startAiops(['token', 'create', '--user', 'lb', '--superuser'], env());
    await created.exited;
    key = created.lines.find((line) => /^[0-9a-f]{40}$/.test(line))!;
    haproxy = startProcess('haproxy', ['-db', '-f', config]);
    await untilHaproxyServes(haproxy, async () => (await request(frontPort, '/status')).status === 200, `port ${frontPort}`);
  });

  after(async () => {
    await haproxy?.stop();
    await Promise.all(Object.values(instances ?? {}).map((instance) => instance.stop('SIGKILL')));
    await redis?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes haproxy -c, as does the production variant with its files in place', async () => {
    const { stdout, stderr } = await run('haproxy', ['-c', '-f', config]);
    expect(stdout + stderr).to.match(/Configuration file is valid/);
    // The production file needs a certificate and error pages at their places: point them here.
    const productionPath = await renderProductionHaproxyConfig(dir, {
      http: await freePort(),
      https: await freePort(),
      webA: ports['web-a'],
      webB: ports['web-b'],
    });
    const checked = await run('haproxy', ['-c', '-f', productionPath]);
    expect(checked.stdout + checked.stderr).to.match(/Configuration file is valid/);
  });

  it('balances round robin on both ports of the range and makes the SERVER cookie stick', async () => {
    for (const port of [frontPort, frontPort + 1]) {
      const served = [];
      for (let i = 0; i < 6; i++) served.push(servedBy(await request(port, '/status')));
      expect(new Set(served)).to.deep.equal(new Set(['web-a', 'web-b']));
      expect(served.slice(0, 2)).to.not.deep.equal([served[0], served[0]]);
    }
    // With the cookie, every request goes to the named instance, and no new cookie is set.
    for (const name of ['web-a', 'web-b'] as const) {
      for (let i = 0; i < 4; i++) {
        const id = `sticky-${name}-${i}`;
        const reply = await request(frontPort, '/status', { cookie: `SERVER=${name}`, 'x-request-id': id });
        expect(reply.setCookie).to.equal(undefined);
        await instances[name]!.waitForLine(new RegExp(`"request_id":"${id}"`), 2_000);
      }
    }
  });

  it('passes X-Forwarded-For, which the API believes only from its trusted proxy', async () => {
    await request(frontPort, '/status', { 'x-request-id': 'xff-through-lb' }, '127.0.0.2');
    const line = await Promise.any(
      Object.values(instances).map((instance) => instance.waitForLine(/"request_id":"xff-through-lb"/, 3_000)),
    );
    expect(JSON.parse(line).client_ip, line).to.equal('127.0.0.2');
    // Straight to an instance from an untrusted address, a forged header is ignored.
    await request(ports['web-a'], '/status', { 'x-request-id': 'xff-forged', 'x-forwarded-for': '198.51.100.7' }, '127.0.0.2');
    const forged = await instances['web-a']!.waitForLine(/"request_id":"xff-forged"/, 3_000);
    expect(JSON.parse(forged).client_ip).to.equal('127.0.0.2');
  });

  it('marks a killed instance down after one failed check and up again after five passes', async () => {
    await instances['web-a']!.stop('SIGKILL');
    await haproxy.waitForLine(/web_servers\/web-a is DOWN/, 5_000);
    // Meanwhile every request is answered by the other instance.
    for (let i = 0; i < 6; i++)
      expect((await request(frontPort, '/api/extras/statuses/', { authorization: `Token ${key}` })).status).to.equal(200);

    const restarted = startInstance('web-a');
    await restarted.waitForLine(/"api listening"/);
    await haproxy.waitForLine(/web_servers\/web-a is UP/, 15_000);
    // The instance logged the five checks that passed before it was UP. Checks run every second, so
    // had it come up sooner, fewer than five would be logged by the time this gives up.
    const checks = () => restarted.lines.filter((line) => line.includes('"path":"/status"') && line.includes('"status":200')).length;
    await until(() => checks() >= 5, 500, 'five passed checks on the restarted instance');
    const served = new Set<string | undefined>();
    for (let i = 0; i < 4; i++) served.add(servedBy(await request(frontPort, '/status')));
    expect(served).to.include('web-a');
  });

  it('loses no client request while an instance is stopped gracefully under load', async () => {
    let stop = false;
    const outcomes: number[] = [];
    const client = async (worker: number) => {
      for (let i = 0; !stop; i++) {
        const reply = await request(frontPort, '/api/plugins/ai-ops/llm-models/', { authorization: `Token ${key}` }).catch(
          () => ({ status: 0 }) as Reply,
        );
        outcomes.push(reply.status);
        if (reply.status !== 200) console.error(`client ${worker} request ${i}: ${reply.status}`);
      }
    };
    const clients = Array.from({ length: 10 }, (_, worker) => client(worker));
    await until(() => outcomes.length >= 30, 10_000, 'requests under way');
    const exit = await instances['web-b']!.stop('SIGTERM');
    // Requests go on after the stop too, answered by the instance left.
    const stoppedAt = outcomes.length;
    await until(() => outcomes.length >= stoppedAt + 30, 10_000, 'requests after the stop');
    stop = true;
    await Promise.all(clients);
    expect(exit).to.equal(0);
    expect(outcomes.length).to.be.greaterThan(50);
    expect(outcomes.filter((status) => status !== 200)).to.deep.equal([]);
  });
});
