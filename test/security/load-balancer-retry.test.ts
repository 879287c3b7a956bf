import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { loadConfig } from '../../src/roles/config.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { freePortPair, renderHaproxyConfig, untilHaproxyServes } from '../support/haproxy.js';
import { startAiops, startProcess, type RunningProcess } from '../support/processes.js';
import { startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { skipUnlessInstalled } from '../support/installed.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const CLIENTS = 24;

/** One sync chat turn through HAProxy on a connection of its own; status 0 when the connection failed. */
function chat(port: number, key: string, sessionId: string, idempotencyKey?: string): Promise<number> {
  const body = JSON.stringify({ message: `turn of ${sessionId}`, session_id: sessionId });
  return new Promise((resolve) => {
    const headers: Record<string, string> = {
      authorization: `Token ${key}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const req = http.request({ host: '127.0.0.1', port, path: CHAT, method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

// Finding 5 of the least-privilege audit: HAProxy retried a chat POST that had reached the killed instance, and the turn was stored twice.
describe('security: the load balancer never runs a chat turn twice', function () {
  this.timeout(180_000);
  let redis: TestRedis;
  let dir: string;
  let stub: ProviderStub;
  let workers: RunningWorkers;
  let instances: Record<'web-a' | 'web-b', RunningProcess>;
  let haproxy: RunningProcess;
  let front: number;
  let ports: Record<'web-a' | 'web-b', number>;
  let key: string;
  const prefix = 'lbretry';

  before(async function () {
    skipUnlessInstalled(this, ['haproxy'], 'haproxy');
    redis = await startTestRedis();
    dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-lb-retry-'));
    stub = await startProviderStub();
    const env = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      TRUST_PROXY: '127.0.0.1',
      DRAIN_DELAY_MS: '0',
      CHAT_RATE_PER_MIN: '0',
      // Every turn is one user's and is held at the provider at once: under the default cap of 8
      // running turns the other 16 would wait for the held ones instead of being in flight when the
      // instance dies (the test then took about 2 minutes).
      CHAT_USER_MAX_TURNS: '0',
      CHAT_PROVIDER_CONCURRENCY: String(CLIENTS),
      CHAT_WAIT_S: '30',
      LOG_LEVEL: 'info',
    };
    const records = createRecords(redis.client, prefix);
    await records.seed();
    await records.llmModels.create(
      {
        name: 'stub',
        description: '',
        provider: 'ollama',
        model_secret_key: '',
        hosted_endpoint: stub.url,
        api_version: '',
        is_default: true,
        temperature: 0,
        model_config: {},
        system_prompt: '',
      },
      OPERATOR,
    );
    key = (
      await records.tokens.create({ username: 'alice', superuser: false, permissions: ['ai_ops.chat'], writeEnabled: true, expires: null })
    ).key;
    workers = await startWorkers(loadConfig(env), silentLogger(), { queues: [QueueName.Chat] });
    await workers.ready();

    front = await freePortPair();
    ports = { 'web-a': await freePort(), 'web-b': await freePort() };
    const { file } = renderHaproxyConfig(dir, { front, webA: ports['web-a'], webB: ports['web-b'] });
    instances = {
      'web-a': startAiops(['api', '--port', String(ports['web-a'])], env),
      'web-b': startAiops(['api', '--port', String(ports['web-b'])], env),
    };
    await Promise.all(Object.values(instances).map((instance) => instance.waitForLine(/"api listening"/, 60_000)));
    haproxy = startProcess('haproxy', ['-db', '-f', file]);
    // Round robin reaches both instances only once HAProxy holds both up (one failed check takes one
    // out for five seconds): probe until each has answered a probe, so the kill meets turns in flight.
    const answeredProbe = (instance: RunningProcess) =>
      instance.lines.some((line) => line.includes('"request"') && line.includes(`"path":"${CHAT}"`) && line.includes('"status":401'));
    await untilHaproxyServes(
      haproxy,
      async () => (await chat(front, 'none', 'probe')) === 401 && answeredProbe(instances['web-a']) && answeredProbe(instances['web-b']),
      `port ${front}, both instances`,
    );
  });

  after(async () => {
    await haproxy?.stop();
    await Promise.all(Object.values(instances ?? {}).map((instance) => instance.stop('SIGKILL')));
    await workers?.close();
    await stub?.close();
    await redis?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('kills an instance under sync chats: no turn is stored twice, and turns with an Idempotency-Key are answered', async () => {
    // Every turn waits at the provider until the instance is gone, so half of them are in flight on it.
    stub.respondWith(...Array.from({ length: CLIENTS }, () => ({ hold: true })));
    const sessions = Array.from({ length: CLIENTS }, () => randomUUID());
    const keyed = new Set(sessions.filter((_, i) => i % 2 === 0));
    const replies = Promise.all(sessions.map((session) => chat(front, key, session, keyed.has(session) ? `turn-${session}` : undefined)));
    await stub.received(CLIENTS);
    await instances['web-a'].stop('SIGKILL');
    // Give HAProxy the moment in which it would retry on the other instance, then let the turns finish.
    await new Promise((resolve) => setTimeout(resolve, 500));
    stub.release();
    const statuses = await replies;

    const turnsOf = async (session: string) => {
      const reply = await fetch(`http://127.0.0.1:${ports['web-b']}${CHAT}sessions/${session}/`, {
        headers: { authorization: `Token ${key}` },
      });
      return reply.status === 200 ? ((await reply.json()) as { turns: number }).turns : 0;
    };
    // Every job ran to the end (those of the killed instance too) before counting.
    await until(async () => (await Promise.all(sessions.map(turnsOf))).every((turns) => turns >= 1), 30_000, 'every turn to be stored');
    const turns = await Promise.all(sessions.map(turnsOf));
    expect(
      turns.filter((count) => count > 1),
      `turns per session: ${turns.join(',')}`,
    ).to.deep.equal([]);
    // Round robin put half the turns on the killed instance: those without a key were not sent again.
    const unkeyedRefused = statuses.filter((status, i) => !keyed.has(sessions[i]!) && status !== 200);
    expect(unkeyedRefused.length, `statuses: ${statuses.join(',')}`).to.be.greaterThan(0);
    // A keyed turn whose retries all met the dead instance before its health check failed (HAProxy
    // answers 503) is sent again by its client with the same key, as the key is for, and again after
    // a pause while HAProxy holds no instance up (a health check missed on a busy machine takes the
    // living one out for a few seconds): it is answered with the turn that was stored, never a second one.
    const sendAgain = async (session: string): Promise<number> => {
      let status = 0;
      for (let attempt = 0; attempt < 15; attempt++) {
        status = await chat(front, key, session, `turn-${session}`);
        if (status !== 502 && status !== 503 && status !== 0) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      return status;
    };
    const resent = await Promise.all(
      sessions.map((session, i) => (keyed.has(session) && statuses[i] !== 200 ? sendAgain(session) : Promise.resolve(200))),
    );
    expect(
      resent.filter((status) => status !== 200),
      `keyed turns not answered 200 when sent again: first ${statuses.join(',')}, again ${resent.join(',')}`,
    ).to.deep.equal([]);
    expect(
      (await Promise.all(sessions.map(turnsOf))).filter((count) => count !== 1),
      'each session holds exactly one turn',
    ).to.deep.equal([]);
  });
});
