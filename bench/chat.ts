/**
 * Chat turns through the API and the queue (HTTP → validation, token auth → BullMQ → worker:
 * model record, secret, session, provider call, stored turn → completion event → HTTP reply)
 * against raw BullMQ add→complete with a no-op processor, at the same concurrency, in one run, and
 * against the floor of any implementation on this machine (the same two HTTP hops and the same
 * queue with nothing else), so that what this service adds is told apart from what HTTP costs.
 * The service process runs the API, the chat worker and the raw queue; a second process plays
 * the outside world (the HTTP clients and an instant OpenAI-protocol provider), so the service
 * is not charged for the load generator. Redis is a private redis-server.
 * Targets: CPU per turn <= 3 ms; throughput >= 0.5x the floor (goal 0.8x); Redis commands per turn
 * (INFO commandstats over the phase, those run inside scripts included) <= 50; added p50 <= 5 ms.
 * Each phase is measured after a warm-up of 1,000 turns (fewer with BENCH_TURNS): a turn's CPU keeps
 * falling over about the first thousand turns, as the JIT and the heap settle. Raw, floor and chat
 * then run in BENCH_ROUNDS rounds (default 3) one after another, and the medians are printed.
 *
 * Streaming: the provider streams its answer (a few dozen words) whenever it is asked to, as a
 * real one does; the chat phase runs with streaming on (the default), then the same phase with
 * CHAT_STREAMING=false (ratio: target >= 0.8), and the time from a turn's POST to its first `delta`
 * event on the event stream is measured over BENCH_TTFD_TURNS turns one after another (p50, p95).
 *
 * Then a soak: BENCH_SOAK_SESSIONS (default 200) concurrent sessions for BENCH_SOAK_S seconds
 * (default 60; 0 skips it), each asking turn after turn; every answered turn must be stored exactly
 * once (zero lost turns), and the latency percentiles are printed.
 *
 *   node --import tsx bench/chat.ts     (BENCH_CONCURRENCY, default 16; BENCH_TURNS, default 2000;
 *                                         BENCH_DEBUG=1 prints every failed reply)
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startApiServer } from '../src/roles/api.js';
import { BullQueue } from '../src/kernel/bullmq/bullmq-queue.adapter.js';
import { QueueWorker } from '../src/kernel/bullmq/bullmq-worker.adapter.js';
import { createRedisClient, duplicateClient, waitForRedis, type RedisClient } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { loadConfig } from '../src/roles/config.js';
import type { Logger } from '../src/kernel/logging/logger.js';
import { addAndWait } from '../src/kernel/jobs/add-and-wait.js';
import { RedisSessionStore } from '../src/chat/adapters/redis-session-store.adapter.js';
import { createRecords } from '../src/records/adapters/redis-records.js';
import { QueueName } from '../src/roles/job-catalogue.js';
import { startWorkers } from '../src/roles/worker.js';
import { failChild } from './support/child-failure.js';
import { createChatUser, discardingLogger, drive, percentile, streamedAnswer, type Figures } from './support/chat-load.js';
import { benchFigures, higher, informational, lower } from './support/figures.js';
import { processCpuMs } from './support/process-cpu.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TURNS = Number(process.env.BENCH_TURNS ?? 2_000);
const WARMUP = Math.min(1_000, TURNS);
/**
 * Raw, floor and chat are measured in this many rounds, one after another, and each figure is the
 * median over rounds (a ratio: the median of each round's own): a machine that gets busier or
 * quieter meanwhile weighs on all three alike, and one disturbed round does not move the figures.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Each client starts a new session after this many turns: sessions of a realistic length. */
const TURNS_PER_SESSION = 10;
const SOAK_SESSIONS = Number(process.env.BENCH_SOAK_SESSIONS ?? 200);
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 60);
const TTFD_TURNS = Number(process.env.BENCH_TTFD_TURNS ?? 200);
/** What the provider answers, whole or in pieces: long enough to arrive as several deltas. */
const ANSWER =
  'Router r1 sits in ams, rack 4; it runs the 17.3 train, its two uplinks are up, its last change was a description update, and nothing in the logs points at trouble right now.';
const figures = benchFigures(import.meta.url, {
  BENCH_CONCURRENCY: CONCURRENCY,
  BENCH_TURNS: TURNS,
  BENCH_ROUNDS: ROUNDS,
  BENCH_TTFD_TURNS: TTFD_TURNS,
  BENCH_SOAK_SESSIONS: SOAK_SESSIONS,
  BENCH_SOAK_S: SOAK_S,
  turns_per_session: TURNS_PER_SESSION,
  warmup_turns: WARMUP,
});

type Request =
  | { type: 'provider' }
  | { type: 'ttfd'; url: string; key: string; total: number }
  | { type: 'chat'; url: string; key: string; total: number }
  | { type: 'soak'; url: string; key: string; sessions: number; seconds: number };
type Reply =
  | { type: 'provider'; url: string }
  | { type: 'ttfd'; p50: number; p95: number; failures: number }
  | { type: 'chat'; figures: Figures }
  | { type: 'soak'; figures: Figures; answered: number };

/** Calls per Redis command name (INFO commandstats). */
type CommandCounts = Map<string, number>;

/**
 * A phase's figures, the CPU the service process spent per turn (and Redis and the load generator,
 * where /proc tells) and the Redis commands a turn made.
 */
type Measured = Figures & { cpuMs: number; redisCpuMs?: number; loadCpuMs?: number; commands: CommandCounts };

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** One phase over its rounds: each figure's median; failures added up; Redis commands per turn over every round. */
function medianRound(rounds: Measured[]): Measured {
  const commands: CommandCounts = new Map();
  for (const round of rounds)
    for (const [name, calls] of round.commands) commands.set(name, (commands.get(name) ?? 0) + calls / rounds.length);
  const known = (values: Array<number | undefined>) => (values.every((value) => value !== undefined) ? median(values) : undefined);
  return {
    perSecond: median(rounds.map((round) => round.perSecond)),
    p50: median(rounds.map((round) => round.p50)),
    p99: median(rounds.map((round) => round.p99)),
    cpuMs: median(rounds.map((round) => round.cpuMs)),
    redisCpuMs: known(rounds.map((round) => round.redisCpuMs)),
    loadCpuMs: known(rounds.map((round) => round.loadCpuMs)),
    failures: rounds.reduce((sum, round) => sum + round.failures, 0),
    commands,
  };
}

/** CPU milliseconds per turn that process `pid` spent between `before` (processCpuMs) and now. */
function otherCpuPerTurn(pid: number | undefined, before: number | undefined, turns: number): number | undefined {
  const after = processCpuMs(pid);
  return before === undefined || after === undefined ? undefined : (after - before) / turns;
}

async function commandCounts(redis: RedisClient): Promise<CommandCounts> {
  const counts: CommandCounts = new Map();
  for (const [, name, calls] of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    counts.set(name!, Number(calls));
  return counts;
}

/** Each command's calls between two readings, per turn (the readings' own INFO left out). */
function commandsPerTurn(before: CommandCounts, after: CommandCounts, turns: number): CommandCounts {
  const perTurn: CommandCounts = new Map();
  for (const [name, calls] of after) {
    const made = calls - (before.get(name) ?? 0) - (name === 'info' ? 1 : 0);
    if (made > 0) perTurn.set(name, made / turns);
  }
  return perTurn;
}

function totalCommands(perTurn: CommandCounts): number {
  return [...perTurn.values()].reduce((sum, calls) => sum + calls, 0);
}

/** "47.0 Redis cmds/turn (evalsha 12.0, get 8.0, ...)": the total and the most made. */
function describeCommands(perTurn: CommandCounts, shown = 6): string {
  const total = totalCommands(perTurn);
  const top = [...perTurn].sort((a, b) => b[1] - a[1]).slice(0, shown);
  return `${total.toFixed(1)} Redis cmds/turn (${top.map(([name, calls]) => `${name} ${calls.toFixed(1)}`).join(', ')})`;
}

/** Milliseconds from a turn's POST to the first `delta` event of its stream, turn after turn. */
async function timeToFirstDelta(url: string, key: string, total: number): Promise<{ p50: number; p95: number; failures: number }> {
  const times: number[] = [];
  let failures = 0;
  const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
  for (let turn = 0; turn < total; turn++) {
    const t0 = performance.now();
    const accepted = await fetch(url, {
      method: 'POST',
      headers: { ...headers, prefer: 'respond-async' },
      body: JSON.stringify({ message: `ttfd ${turn}` }),
    });
    const { job_id: jobId } = (await accepted.json()) as { job_id: string };
    const stream = await fetch(`${url}jobs/${jobId}/events`, { headers });
    const decoder = new TextDecoder();
    let text = '';
    let first: number | undefined;
    for await (const piece of stream.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(piece, { stream: true });
      if (first === undefined && text.includes('event: delta')) first = performance.now() - t0;
      if (text.includes('event: completed') || text.includes('event: failed')) break;
    }
    if (first === undefined) failures++;
    else times.push(first);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), failures };
}

/** The outside world: an instant provider (streaming when asked, as real ones do) and the chat clients. */
function outside(): void {
  const whole = JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 0,
    model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const streamed = streamedAnswer(ANSWER);
  const provider = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (body += piece));
    req.on('end', () => {
      if (body.includes('"stream":true')) res.writeHead(200, { 'content-type': 'text/event-stream' }).end(streamed);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(whole);
    });
  });
  const reply = (message: Reply) => process.send?.(message);
  const handle = async (message: Request) => {
    if (message.type === 'provider') {
      provider.listen(0, '127.0.0.1', () =>
        reply({ type: 'provider', url: `http://127.0.0.1:${(provider.address() as { port: number }).port}` }),
      );
      return;
    }
    if (message.type === 'ttfd') {
      reply({ type: 'ttfd', ...(await timeToFirstDelta(message.url, message.key, message.total)) });
      return;
    }
    if (message.type === 'soak') {
      reply({ type: 'soak', ...(await soak(message.url, message.key, message.sessions, message.seconds)) });
      return;
    }
    const turns = new Array<number>(CONCURRENCY).fill(0);
    const figures = await drive(message.total, CONCURRENCY, async (loop) => {
      const response = await fetch(message.url, {
        method: 'POST',
        headers: { authorization: `Token ${message.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'status of router r1?', session_id: `s${loop}-${Math.floor(turns[loop]!++ / TURNS_PER_SESSION)}` }),
      });
      const text = await response.text();
      if (response.status !== 200 && process.env.BENCH_DEBUG) {
        console.error(response.status, text);
        // 202: the turn did not finish within CHAT_WAIT_S; where is it now?
        if (response.status === 202) {
          const { status_url: statusUrl } = JSON.parse(text) as { status_url: string };
          console.error('  now:', await (await fetch(statusUrl, { headers: { authorization: `Token ${message.key}` } })).text());
        }
      }
      return response.status === 200;
    });
    reply({ type: 'chat', figures });
  };
  process.on('message', (message: Request) => {
    handle(message).catch(failChild);
  });
  process.on('disconnect', () => provider.close());
}

/** `sessions` sessions at once for `seconds`: turn after turn, each in its own session. */
async function soak(url: string, key: string, sessions: number, seconds: number): Promise<{ figures: Figures; answered: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + seconds * 1_000;
  await Promise.all(
    Array.from({ length: sessions }, async (_, session) => {
      for (let turn = 0; performance.now() < deadline; turn++) {
        const t0 = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: `turn ${turn}`, session_id: `soak-${session}` }),
        }).catch(() => null);
        const ok = response?.status === 200 && ((await response.json()) as { response?: string }).response !== undefined;
        if (!ok) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    figures: { perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures },
    answered: latencies.length - failures,
  };
}

/**
 * The floor of any implementation of this contract on this machine: the same two HTTP hops and the
 * same queue with nothing else (bare node:http in, BullMQ add→complete, one keep-alive request to
 * the provider, JSON out; no auth, validation, records, history or logging).
 */
async function startFloor(
  connection: RedisClient,
  keyPrefix: string,
  providerUrl: string,
  logger: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  const queueName = 'bench-floor';
  type Turn = { name: 'turn'; queue: typeof queueName; data: { message: string }; result: { response: string }; progress: never };
  const queue = new BullQueue<Turn>({
    queueName,
    connection,
    keyPrefix,
    logger,
    events: true,
    jobOptions: () => ({ removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } }),
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const readJson = <T>(from: http.IncomingMessage): Promise<T> =>
    new Promise((resolve, reject) => {
      let text = '';
      from.setEncoding('utf8');
      from.on('data', (chunk: string) => (text += chunk));
      from.on('end', () => resolve(JSON.parse(text) as T));
      from.on('error', reject);
    });
  const callProvider = (message: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        `${providerUrl}/v1/chat/completions`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          readJson<{ choices: Array<{ message: { content: string } }> }>(response).then(
            (body) => resolve(body.choices[0]?.message.content ?? ''),
            reject,
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: message }] }));
    });
  const worker = new QueueWorker<Turn>({ queueName, connection, keyPrefix, concurrency: CONCURRENCY, logger }, async (job) => ({
    response: await callProvider(job.data.message),
  }));
  let turns = 0;
  const server = http.createServer((req, res) => {
    readJson<{ message: string }>(req)
      .then(async ({ message }) => {
        const id = `floor-${turns++}`;
        const outcome = await addAndWait(queue, id, () => queue.add({ name: 'turn', data: { message } }, id), 30_000);
        if (outcome?.state !== 'completed') throw new Error('turn not completed');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ response: outcome.result.response }));
      })
      .catch(() => res.writeHead(500).end());
  });
  await Promise.all([queue.ready(), worker.ready(), new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))]);
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    async close() {
      server.close();
      agent.destroy();
      await worker.close();
      await queue.obliterate();
      await queue.close();
    },
  };
}

/** `aiops worker --queues chat` as deployed: its own process, logging to its stdout (discarded). */
async function startWorkerProcess(redisUrl: string, keyPrefix: string): Promise<ChildProcess> {
  const entry = fileURLToPath(new URL('../src/cli/run.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry, 'worker', '--queues', 'chat', '--concurrency', String(CONCURRENCY)], {
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: keyPrefix,
      CHAT_PROVIDER_CONCURRENCY: String(CONCURRENCY),
      CHAT_USER_MAX_TURNS: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    stdout.on('line', (line) => {
      if (line.includes('workers started')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`aiops worker exited (${code}) before starting`)));
  });
  return child;
}

function ask(child: ChildProcess, request: Request): Promise<Reply> {
  return new Promise((resolve) => {
    child.once('message', (message: Reply) => resolve(message));
    child.send(request);
  });
}

async function service(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), { env: { ...process.env, BENCH_ROLE: 'outside' }, execArgv: ['--import', 'tsx'] });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-chat-'));
  const redisServer = await startRedisProcess({ dir });
  const providerUrl = ((await ask(child, { type: 'provider' })) as { url: string }).url;
  const logger = discardingLogger();
  const prefix = 'benchchat';
  const settings = {
    REDIS_URL: redisServer.url,
    REDIS_KEY_PREFIX: prefix,
    // Every turn comes from one token, standing for many users: no per-user rate or turn cap.
    CHAT_RATE_PER_MIN: '0',
    CHAT_USER_MAX_TURNS: '0',
    CHAT_WAIT_S: '30',
    CHAT_PROVIDER_CONCURRENCY: String(CONCURRENCY),
  };
  const config = loadConfig(settings);

  const redis = createRedisClient({ topology: redisServer.url, role: 'request', logger });
  await waitForRedis(redis, 5_000);
  const api = await startApiServer({ config, redis, port: 0, logger, version: 'bench' });
  const workers = await startWorkers(config, logger, { queues: [QueueName.Chat], concurrency: CONCURRENCY });
  await workers.ready();
  const records = createRecords(redis, prefix);
  const { key, userId: user } = await createChatUser(records, providerUrl);

  // Raw BullMQ on its own queue: add, a no-op processor, the completion event.
  type Noop = { name: 'noop'; queue: 'bench-raw'; data: { n: number }; result: { ok: true }; progress: never };
  const connection = redis;
  const rawQueue = new BullQueue<Noop>({
    queueName: 'bench-raw',
    connection,
    keyPrefix: prefix,
    logger,
    events: true,
    jobOptions: () => ({ removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } }),
  });
  await rawQueue.ready();
  const rawWorker = new QueueWorker<Noop>(
    { queueName: 'bench-raw', connection, keyPrefix: prefix, concurrency: CONCURRENCY, logger },
    async () => ({ ok: true }),
  );
  await rawWorker.ready();
  let jobs = 0;
  const raw = async () => {
    const id = `raw-${jobs++}`;
    return (await addAndWait(rawQueue, id, () => rawQueue.add({ name: 'noop', data: { n: jobs } }, id), 30_000))?.state === 'completed';
  };
  const floor = await startFloor(connection, prefix, providerUrl, logger);
  const turns = async (url: string, total: number) =>
    ((await ask(child, { type: 'chat', url, key, total })) as { figures: Figures }).figures;
  const chatUrl = `http://127.0.0.1:${api.port}/plugins/ai-ops/api/chat/`;

  await drive(WARMUP, CONCURRENCY, raw);
  await turns(floor.url, WARMUP);
  await turns(chatUrl, WARMUP);
  // CPU milliseconds the service process spends per turn, and the Redis commands a turn makes:
  // steadier than throughput on a shared machine.
  const cpuPerTurn = async (phase: () => Promise<Figures>): Promise<Measured> => {
    const commandsBefore = await commandCounts(redis);
    const [redisBefore, loadBefore] = [processCpuMs(redisServer.pid), processCpuMs(child.pid)];
    const before = process.cpuUsage();
    const figures = await phase();
    const used = process.cpuUsage(before);
    const redisCpuMs = otherCpuPerTurn(redisServer.pid, redisBefore, TURNS);
    const loadCpuMs = otherCpuPerTurn(child.pid, loadBefore, TURNS);
    const commands = commandsPerTurn(commandsBefore, await commandCounts(redis), TURNS);
    return {
      ...figures,
      cpuMs: (used.user + used.system) / 1_000 / TURNS,
      ...(redisCpuMs === undefined ? {} : { redisCpuMs }),
      ...(loadCpuMs === undefined ? {} : { loadCpuMs }),
      commands,
    };
  };
  const rounds: Array<Record<'raw' | 'floor' | 'chat', Measured>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push({
      raw: await cpuPerTurn(() => drive(TURNS, CONCURRENCY, raw)),
      floor: await cpuPerTurn(() => turns(floor.url, TURNS)),
      chat: await cpuPerTurn(() => turns(chatUrl, TURNS)),
    });
  }
  const rawFigures = medianRound(rounds.map((round) => round.raw));
  const floorFigures = medianRound(rounds.map((round) => round.floor));
  const chatFigures = medianRound(rounds.map((round) => round.chat));
  const roundRatio = (of: 'chat' | 'floor', to: 'floor' | 'raw') =>
    median(rounds.map((round) => round[of].perSecond / round[to].perSecond));

  const f = (n: number) => n.toFixed(2);
  console.log(
    `chat benchmark: ${TURNS} turns, concurrency ${CONCURRENCY}, ${TURNS_PER_SESSION} turns per session, instant OpenAI-protocol stub, ${os.cpus().length} cores`,
  );
  const cpu = (figures: { cpuMs: number }) => `CPU ${f(figures.cpuMs)} ms/turn`;
  /** A phase's figures under `name`: turns (or jobs) per second, latency, CPU per turn when measured, failed turns. */
  const phase = (name: string, measured: Figures & { cpuMs?: number }, unit = 'turns/s') => ({
    [`${name}.throughput`]: higher(measured.perSecond, unit),
    [`${name}.p50`]: lower(measured.p50, 'ms'),
    [`${name}.p99`]: lower(measured.p99, 'ms'),
    ...(measured.cpuMs === undefined ? {} : { [`${name}.cpu_per_turn`]: lower(measured.cpuMs, 'ms') }),
    [`${name}.failed`]: lower(measured.failures, 'turns', { target: 0 }),
  });
  figures.print(
    `  raw BullMQ add→complete   ${f(rawFigures.perSecond).padStart(9)} jobs/s   p50 ${f(rawFigures.p50)} ms   p99 ${f(rawFigures.p99)} ms   ${cpu(rawFigures)}`,
    phase('raw', rawFigures, 'jobs/s'),
  );
  figures.print(
    `  floor: bare HTTP + BullMQ ${f(floorFigures.perSecond).padStart(9)} turns/s  p50 ${f(floorFigures.p50)} ms   p99 ${f(floorFigures.p99)} ms   ${cpu(floorFigures)} (failed: ${floorFigures.failures})`,
    phase('floor', floorFigures),
  );
  figures.print(
    `  chat API + queue + worker ${f(chatFigures.perSecond).padStart(9)} turns/s  p50 ${f(chatFigures.p50)} ms   p99 ${f(chatFigures.p99)} ms   ${cpu(chatFigures)} (target <= 3; failed: ${chatFigures.failures})`,
    { ...phase('chat', chatFigures), 'chat.cpu_per_turn': lower(chatFigures.cpuMs, 'ms', { target: 3 }) },
  );
  figures.print(
    `  throughput ratio          chat ${f(roundRatio('chat', 'floor'))}x floor (target >= 0.5, goal 0.8); ${f(roundRatio('chat', 'raw'))}x raw; floor ${f(roundRatio('floor', 'raw'))}x raw`,
    {
      'chat.throughput_over_floor': higher(roundRatio('chat', 'floor'), 'x', { target: 0.5 }),
      'chat.throughput_over_raw': higher(roundRatio('chat', 'raw'), 'x'),
      'floor.throughput_over_raw': higher(roundRatio('floor', 'raw'), 'x'),
    },
  );
  figures.print(
    `  added latency             p50 ${f(chatFigures.p50 - rawFigures.p50)} ms (target <= 5)   p99 ${f(chatFigures.p99 - rawFigures.p99)} ms`,
    {
      'chat.added_p50': lower(chatFigures.p50 - rawFigures.p50, 'ms', { target: 5 }),
      'chat.added_p99': lower(chatFigures.p99 - rawFigures.p99, 'ms'),
    },
  );
  // The service is one thread: past one core's worth of CPU per turn it is the limit, whatever Redis and the load generator leave free.
  const others = (measured: Measured) =>
    measured.redisCpuMs === undefined || measured.loadCpuMs === undefined
      ? 'not measured (no /proc)'
      : `service ${f(measured.cpuMs)}, Redis ${f(measured.redisCpuMs)}, load generator ${f(measured.loadCpuMs)} ms`;
  figures.print(`  CPU per turn by process   floor: ${others(floorFigures)}; chat: ${others(chatFigures)}`, {
    ...(floorFigures.redisCpuMs === undefined ? {} : { 'floor.redis_cpu_per_turn': informational(floorFigures.redisCpuMs, 'ms') }),
    ...(floorFigures.loadCpuMs === undefined ? {} : { 'floor.load_cpu_per_turn': informational(floorFigures.loadCpuMs, 'ms') }),
    ...(chatFigures.redisCpuMs === undefined ? {} : { 'chat.redis_cpu_per_turn': lower(chatFigures.redisCpuMs, 'ms') }),
    ...(chatFigures.loadCpuMs === undefined ? {} : { 'chat.load_cpu_per_turn': informational(chatFigures.loadCpuMs, 'ms') }),
  });
  figures.print(`  floor Redis               ${describeCommands(floorFigures.commands)}`, {
    'floor.redis_commands_per_turn': informational(totalCommands(floorFigures.commands), 'commands'),
  });
  figures.print(`  chat Redis                ${describeCommands(chatFigures.commands)} (target <= 50)`, {
    'chat.redis_commands_per_turn': lower(totalCommands(chatFigures.commands), 'commands', { noise: 0, target: 50 }),
  });

  // Streaming: the time to the first delta, one turn at a time; then the chat phase with whole answers.
  const ttfd = (await ask(child, { type: 'ttfd', url: chatUrl, key, total: TTFD_TURNS })) as { p50: number; p95: number; failures: number };
  await workers.close();
  const wholeWorkers = await startWorkers(loadConfig({ ...settings, CHAT_STREAMING: 'false' }), logger, {
    queues: [QueueName.Chat],
    concurrency: CONCURRENCY,
  });
  await wholeWorkers.ready();
  await turns(chatUrl, WARMUP);
  const wholeFigures = await cpuPerTurn(() => turns(chatUrl, TURNS));
  await wholeWorkers.close();
  // Streaming once more, so that a machine getting busier or quieter meanwhile weighs on both sides.
  const againWorkers = await startWorkers(config, logger, { queues: [QueueName.Chat], concurrency: CONCURRENCY });
  await againWorkers.ready();
  await turns(chatUrl, WARMUP);
  const againFigures = await cpuPerTurn(() => turns(chatUrl, TURNS));
  await againWorkers.close();
  const streamedPerSecond = (chatFigures.perSecond + againFigures.perSecond) / 2;
  const streamedCpuMs = (chatFigures.cpuMs + againFigures.cpuMs) / 2;
  figures.print(
    `  time to first delta       p50 ${f(ttfd.p50)} ms   p95 ${f(ttfd.p95)} ms   (${TTFD_TURNS} turns one at a time, POST to the first delta event; without one: ${ttfd.failures})`,
    {
      'first_delta.p50': lower(ttfd.p50, 'ms'),
      'first_delta.p95': lower(ttfd.p95, 'ms'),
      'first_delta.without_delta': lower(ttfd.failures, 'turns', { target: 0 }),
    },
  );
  figures.print(
    `  whole answers (no stream) ${f(wholeFigures.perSecond).padStart(9)} turns/s  p50 ${f(wholeFigures.p50)} ms   p99 ${f(wholeFigures.p99)} ms   ${cpu(wholeFigures)} (failed: ${wholeFigures.failures})`,
    phase('whole_answers', wholeFigures),
  );
  figures.print(
    `  streaming again           ${f(againFigures.perSecond).padStart(9)} turns/s  p50 ${f(againFigures.p50)} ms   p99 ${f(againFigures.p99)} ms   ${cpu(againFigures)} (failed: ${againFigures.failures})`,
    phase('streaming_again', againFigures),
  );
  figures.print(
    `  streaming / whole         ${f(streamedPerSecond / wholeFigures.perSecond)}x throughput (target >= 0.8; streaming is the mean of the runs before and after); CPU ${f(streamedCpuMs / wholeFigures.cpuMs)}x per turn`,
    {
      'streaming.throughput_over_whole': higher(streamedPerSecond / wholeFigures.perSecond, 'x', { target: 0.8 }),
      'streaming.cpu_over_whole': lower(streamedCpuMs / wholeFigures.cpuMs, 'x'),
    },
  );

  // The scale-out layout: the same API, the chat worker in an `aiops worker` process of its own.
  const workerProcess = await startWorkerProcess(redisServer.url, prefix);
  await turns(chatUrl, WARMUP);
  const workerBefore = processCpuMs(workerProcess.pid);
  const splitFigures = await cpuPerTurn(() => turns(chatUrl, TURNS));
  const workerCpuMs = otherCpuPerTurn(workerProcess.pid, workerBefore, TURNS);
  workerProcess.kill('SIGTERM');
  await once(workerProcess, 'exit');
  figures.print(
    `  API + aiops worker process ${f(splitFigures.perSecond).padStart(8)} turns/s  p50 ${f(splitFigures.p50)} ms   p99 ${f(splitFigures.p99)} ms   (failed: ${splitFigures.failures}; ${f(splitFigures.perSecond / rawFigures.perSecond)}x raw)`,
    {
      ...phase('worker_process', splitFigures),
      'worker_process.throughput_over_raw': higher(splitFigures.perSecond / rawFigures.perSecond, 'x'),
    },
  );
  if (workerCpuMs !== undefined) {
    figures.print(
      `  CPU per turn, split       API ${f(splitFigures.cpuMs)} ms, worker ${f(workerCpuMs)} ms (each its own thread), Redis ${f(splitFigures.redisCpuMs ?? NaN)} ms, load generator ${f(splitFigures.loadCpuMs ?? NaN)} ms`,
      { 'worker_process.worker_cpu_per_turn': lower(workerCpuMs, 'ms') },
    );
  }
  const soakWorkers = await startWorkers(config, logger, { queues: [QueueName.Chat], concurrency: CONCURRENCY });
  await soakWorkers.ready();

  if (SOAK_S > 0) {
    const url = `http://127.0.0.1:${api.port}/plugins/ai-ops/api/chat/`;
    const soaked = (await ask(child, { type: 'soak', url, key, sessions: SOAK_SESSIONS, seconds: SOAK_S })) as {
      figures: Figures;
      answered: number;
    };
    // Every answered turn must be in its session, once.
    const sessionRedis = duplicateClient(redis, { db: config.redis.sessionDb });
    await waitForRedis(sessionRedis, 5_000);
    const sessions = new RedisSessionStore(sessionRedis, { prefix, ttlSeconds: config.chat.sessionTtlS });
    let stored = 0;
    for (let session = 0; session < SOAK_SESSIONS; session++) stored += (await sessions.get(user, `soak-${session}`))?.turns ?? 0;
    const lost = soaked.answered - stored;
    console.log(`soak: ${SOAK_SESSIONS} concurrent sessions for ${SOAK_S} s`);
    figures.print(
      `  ${soaked.answered} turns answered (${f(soaked.figures.perSecond)}/s), ${soaked.figures.failures} failed, ${stored} stored: ${lost === 0 && soaked.figures.failures === 0 ? 'zero lost turns' : `${lost} LOST`}`,
      {
        'soak.throughput': higher(soaked.figures.perSecond, 'turns/s'),
        'soak.failed': lower(soaked.figures.failures, 'turns', { target: 0 }),
        'soak.lost': lower(lost, 'turns', { target: 0 }),
      },
    );
    figures.print(`  latency p50 ${f(soaked.figures.p50)} ms   p99 ${f(soaked.figures.p99)} ms`, {
      'soak.p50': lower(soaked.figures.p50, 'ms'),
      'soak.p99': lower(soaked.figures.p99, 'ms'),
    });
    sessionRedis.disconnect();
  }

  child.disconnect();
  await floor.close();
  await rawWorker.close();
  await rawQueue.obliterate();
  await rawQueue.close();
  await api.close();
  await soakWorkers.close();
  redis.disconnect();
  await redisServer.stop();
  rmSync(dir, { recursive: true, force: true });
}

if (process.env.BENCH_ROLE === 'outside') outside();
else await service();
