import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HEARTBEAT_MS } from '../../src/chat/http/chat.router.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { freePortPair, renderHaproxyConfig, renderProductionHaproxyConfig, untilHaproxyServes } from '../support/haproxy.js';
import { startProcess, type RunningProcess } from '../support/processes.js';
import { skipUnlessInstalled } from '../support/installed.js';

/** What the issue measured: a synchronous turn of 15 s (CHAT_WAIT_S allows 120) and a 30 s event stream. */
const TURN_MS = 15_000;
const STREAM_MS = 30_000;
const CHAT = '/plugins/ai-ops/api/chat/';
const EVENTS = `${CHAT}jobs/job-1/events`;

/**
 * An API instance as HAProxy sees one during a long chat turn: /status passes, a synchronous turn
 * answers after TURN_MS, and an event stream stays open STREAM_MS with the API's own heartbeat.
 */
async function startSlowApi(): Promise<{ port: number; close(): Promise<void> }> {
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/status') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (req.method === 'POST' && req.url === CHAT) {
      return later(TURN_MS, () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"response":"done"}'));
    }
    if (req.url === EVENTS) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      later(STREAM_MS, () => {
        clearInterval(heartbeat);
        res.end('event: completed\ndata: {}\n\n');
      });
      res.on('close', () => clearInterval(heartbeat));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One request through the balancer; the whole body, or how the connection ended early. */
function through(url: string, method: string): Promise<{ status: number; body: string }> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { method, agent: false, rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{"message":"a long question"}' : undefined);
  });
}

describe('the shipped HAProxy configurations and long chat turns', function () {
  this.timeout(STREAM_MS + 30_000);
  let dir: string;
  let api: Awaited<ReturnType<typeof startSlowApi>>;
  const balancers: RunningProcess[] = [];
  const fronts: Record<'haproxy.cfg' | 'haproxy.prod.cfg', string> = { 'haproxy.cfg': '', 'haproxy.prod.cfg': '' };

  before(async function () {
    skipUnlessInstalled(this, ['haproxy', 'openssl'], 'haproxy openssl');
    dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-haproxy-timeouts-'));
    api = await startSlowApi();
    const front = await freePortPair();
    const plain = renderHaproxyConfig(dir, { front, webA: api.port, webB: api.port }).file;
    const secure = { http: await freePort(), https: await freePort(), webA: api.port, webB: api.port };
    const production = await renderProductionHaproxyConfig(dir, secure);
    fronts['haproxy.cfg'] = `http://127.0.0.1:${front}`;
    fronts['haproxy.prod.cfg'] = `https://127.0.0.1:${secure.https}`;
    for (const file of [plain, production]) balancers.push(startProcess('haproxy', ['-db', '-f', file]));
    for (const [index, url] of Object.values(fronts).entries()) {
      await untilHaproxyServes(balancers[index]!, async () => (await through(`${url}/status`, 'GET')).status === 200, url);
    }
  });

  after(async () => {
    await Promise.all(balancers.map((balancer) => balancer.stop()));
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Both configurations and both kinds of request at once: the test lasts one stream, not four.
  it(`carries a ${TURN_MS / 1_000} s synchronous turn and a ${STREAM_MS / 1_000} s event stream through each configuration`, async () => {
    const outcomes = await Promise.all(
      Object.entries(fronts).flatMap(([file, url]) => [
        through(`${url}${CHAT}`, 'POST').then((reply) => ({ what: `${file}: synchronous turn`, reply })),
        through(`${url}${EVENTS}`, 'GET').then((reply) => ({ what: `${file}: event stream`, reply })),
      ]),
    );
    for (const { what, reply } of outcomes) {
      expect(reply.status, `${what}: ${reply.body}`).to.equal(200);
      expect(reply.body, what).to.match(what.endsWith('turn') ? /"response":"done"/ : /event: completed/);
    }
  });
});
