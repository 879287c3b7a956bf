/**
 * The cost of tracing a chat turn: throughput and CPU per turn with traces exported (OTLP over
 * HTTP to a receiver that accepts and drops them) against tracing off, in one run. Each turn is a
 * model call that asks for a tool, the tool call, and a second model call that streams the answer:
 * the API request, the queue, the worker's turn, two model spans, a tool span and the Redis spans
 * of the session read and write. The service process runs the API and the chat worker; a second
 * process plays the outside world (the HTTP clients, an instant OpenAI-protocol provider and the
 * OTLP receiver), so the service is not charged for them. Phases come in pairs, off→on then
 * on→off, and each pair's ratio is taken; their median is the figure. Target: tracing costs under
 * 10% of throughput (CPU per turn, steadier on a shared machine, is printed beside it).
 *
 *   node --import tsx bench/tracing.ts   (BENCH_CONCURRENCY, default 16; BENCH_TURNS per phase, default 300; BENCH_PAIRS, default 10)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatTools } from '../src/chat/chat-tools.port.js';
import { loadConfig } from '../src/roles/config.js';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { startTracing } from '../src/kernel/tracing/otel-sdk.adapter.js';
import { createRecords } from '../src/records/adapters/redis-records.js';
import { startApiServer } from '../src/roles/api.js';
import { QueueName } from '../src/roles/job-catalogue.js';
import { startWorkers } from '../src/roles/worker.js';
import { failChild } from './support/child-failure.js';
import { createChatUser, discardingLogger, drive, streamedAnswer, type Figures } from './support/chat-load.js';
import { benchFigures, higher, informational, lower } from './support/figures.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TURNS = Number(process.env.BENCH_TURNS ?? 300);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 10);
/** Turns before each phase's measured ones: the switch (tracing started or stopped) settles. */
const WARMUP = Math.min(50, TURNS);
const TURNS_PER_SESSION = 10;
const figures = benchFigures(import.meta.url, {
  BENCH_CONCURRENCY: CONCURRENCY,
  BENCH_TURNS: TURNS,
  BENCH_PAIRS: PAIRS,
  turns_per_session: TURNS_PER_SESSION,
  warmup_turns: WARMUP,
});
const ANSWER = 'Router r1 sits in ams, rack 4; its two uplinks are up and nothing in the logs points at trouble right now.';

type Request = { type: 'start' } | { type: 'chat'; url: string; key: string; total: number } | { type: 'spans' };
type Reply = { type: 'start'; provider: string; receiver: string } | { type: 'chat'; figures: Figures } | { type: 'spans'; spans: number };

/** The outside world: an instant provider (a tool call, then the streamed answer), an OTLP receiver that drops what it gets, the chat clients. */
function outside(): void {
  const toolCall = JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 0,
    model: 'bench',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'device_lookup', arguments: '{"name":"r1"}' } }],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const answer = streamedAnswer(ANSWER);
  const provider = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (body += piece));
    req.on('end', () => {
      // After the tool's result: the step that answers, streamed; otherwise the step that asks for the tool.
      const { messages } = JSON.parse(body) as { messages: Array<{ role: string }> };
      if (messages.at(-1)?.role === 'tool') res.writeHead(200, { 'content-type': 'text/event-stream' }).end(answer);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(toolCall);
    });
  });
  let spans = 0;
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (body += piece));
    req.on('end', () => {
      spans += body.split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const reply = (message: Reply) => process.send?.(message);
  const listening = (server: http.Server) =>
    new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
    );
  const handle = async (message: Request) => {
    if (message.type === 'start') {
      reply({ type: 'start', provider: await listening(provider), receiver: await listening(receiver) });
      return;
    }
    if (message.type === 'spans') {
      reply({ type: 'spans', spans });
      return;
    }
    const turns = new Array<number>(CONCURRENCY).fill(0);
    const figures = await drive(message.total, CONCURRENCY, async (loop) => {
      const response = await fetch(message.url, {
        method: 'POST',
        headers: { authorization: `Token ${message.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'status of router r1?', session_id: `s${loop}-${Math.floor(turns[loop]!++ / TURNS_PER_SESSION)}` }),
      });
      await response.text();
      return response.status === 200;
    });
    reply({ type: 'chat', figures });
  };
  process.on('message', (message: Request) => {
    handle(message).catch(failChild);
  });
  process.on('disconnect', () => {
    provider.close();
    receiver.close();
  });
}

/** One phase's figures: CPU milliseconds of the service process per turn, and for a traced phase the spans it exported per turn. */
type Run = Figures & { cpuMs: number; spansPerTurn?: number };

function ask<R extends Reply>(child: ChildProcess, request: Request): Promise<R> {
  return new Promise((resolve) => {
    child.once('message', (message: R) => resolve(message));
    child.send(request);
  });
}

/** The tool the model asks for: answers at once, as the tool server's reads of a warm cache do. */
const LOOKUP: ChatTools = {
  list: async () => [{ name: 'device_lookup', description: 'Find a device', parameters: { type: 'object', properties: {} } }],
  call: async () => 'r1 is in ams, rack 4',
  review: async () => ({ server: 'bench', needsApproval: false }),
};

async function service(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), { env: { ...process.env, BENCH_ROLE: 'outside' }, execArgv: ['--import', 'tsx'] });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-tracing-'));
  const redisServer = await startRedisProcess({ dir });
  const { provider, receiver } = await ask<Extract<Reply, { type: 'start' }>>(child, { type: 'start' });
  // Real loggers that format every line (the trace id included when traced), writing nowhere.
  const logger = discardingLogger();
  const prefix = 'benchtrace';
  const config = loadConfig({
    REDIS_URL: redisServer.url,
    REDIS_KEY_PREFIX: prefix,
    CHAT_RATE_PER_MIN: '0',
    CHAT_USER_MAX_TURNS: '0',
    CHAT_WAIT_S: '30',
    CHAT_PROVIDER_CONCURRENCY: String(CONCURRENCY),
  });
  const redis = createRedisClient({ topology: redisServer.url, role: 'request', logger });
  await waitForRedis(redis, 5_000);
  const api = await startApiServer({ config, redis, port: 0, logger, version: 'bench' });
  const workers = await startWorkers(config, logger, { queues: [QueueName.Chat], concurrency: CONCURRENCY, tools: LOOKUP });
  await workers.ready();
  const records = createRecords(redis, prefix);
  const { key } = await createChatUser(records, provider);
  const url = `http://127.0.0.1:${api.port}/plugins/ai-ops/api/chat/`;
  const turns = async (total: number) => (await ask<Extract<Reply, { type: 'chat' }>>(child, { type: 'chat', url, key, total })).figures;
  const spans = async () => (await ask<Extract<Reply, { type: 'spans' }>>(child, { type: 'spans' })).spans;

  // CPU milliseconds the service process spends per turn: steadier than throughput on a shared machine.
  const phase = async (): Promise<Run> => {
    await turns(WARMUP);
    const before = process.cpuUsage();
    const figures = await turns(TURNS);
    const used = process.cpuUsage(before);
    return { ...figures, cpuMs: (used.user + used.system) / 1_000 / TURNS };
  };
  const traced = async (): Promise<Run> => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver;
    const tracing = await startTracing('aiops-bench');
    const before = await spans();
    const figures = await phase();
    // Exports what the batch still holds, so the spans of this phase are all counted.
    await tracing.shutdown();
    return { ...figures, spansPerTurn: ((await spans()) - before) / (TURNS + WARMUP) };
  };
  // Pairs in turn off→on and on→off, so that a machine getting busier or quieter weighs on both sides.
  const off: Run[] = [];
  const on: Run[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    if (pair % 2 === 0) {
      off.push(await phase());
      on.push(await traced());
    } else {
      on.push(await traced());
      off.push(await phase());
    }
  }

  const mean = (runs: Run[], of: 'perSecond' | 'cpuMs' | 'p50' | 'p99') => runs.reduce((sum, run) => sum + run[of], 0) / runs.length;
  /** The value at fraction `q` of the sorted values, between neighbours (0.5: the median). */
  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (sorted.length - 1) * q;
    return sorted[Math.floor(at)]! + (sorted[Math.ceil(at)]! - sorted[Math.floor(at)]!) * (at - Math.floor(at));
  };
  const f = (n: number) => n.toFixed(2);
  const failed = (runs: Run[]) => runs.reduce((sum, run) => sum + run.failures, 0);
  const line = (label: string, runs: Run[]) =>
    `  ${label.padEnd(32)} ${f(mean(runs, 'perSecond')).padStart(8)} turns/s   p50 ${f(mean(runs, 'p50'))} ms   p99 ${f(mean(runs, 'p99'))} ms   CPU ${f(mean(runs, 'cpuMs'))} ms/turn   (failed: ${failed(runs)}; runs ${runs.map((run) => f(run.perSecond)).join(', ')} turns/s)`;
  /** One side's figures under `name`: the means of its phases, and the turns that failed in all of them. */
  const side = (name: string, runs: Run[]) => ({
    [`${name}.throughput`]: higher(mean(runs, 'perSecond'), 'turns/s'),
    [`${name}.p50`]: lower(mean(runs, 'p50'), 'ms'),
    [`${name}.p99`]: lower(mean(runs, 'p99'), 'ms'),
    [`${name}.cpu_per_turn`]: lower(mean(runs, 'cpuMs'), 'ms'),
    [`${name}.failed`]: lower(failed(runs), 'turns', { target: 0 }),
  });
  console.log(
    `tracing benchmark: ${PAIRS} pairs of phases (tracing off, on) of ${TURNS} turns, concurrency ${CONCURRENCY}, each turn a tool call and a streamed answer, ${os.cpus().length} cores`,
  );
  figures.print(line('tracing off', off), side('tracing_off', off));
  figures.print(line('tracing on (OTLP to a receiver)', on), side('tracing_on', on));
  const spansPerTurn = on.reduce((sum, run) => sum + (run.spansPerTurn ?? 0), 0) / on.length;
  figures.print(`  spans exported per turn          ${f(spansPerTurn)}`, {
    'tracing_on.spans_per_turn': informational(spansPerTurn, 'spans'),
  });
  // Each pair's ratio, and their median: one phase disturbed by the machine's other work does not decide it.
  const ratios = (of: 'perSecond' | 'cpuMs') => on.map((run, pair) => run[of] / off[pair]![of]);
  const throughput = ratios('perSecond');
  const cpu = ratios('cpuMs');
  console.log(`  pairs' on / off                  throughput ${throughput.map(f).join(', ')}; CPU per turn ${cpu.map(f).join(', ')}`);
  // The spread of the pairs says how far the machine's other work moved them.
  const spread = (values: number[]) => `middle half ${f(quantile(values, 0.25))}–${f(quantile(values, 0.75))}`;
  figures.print(
    `  on / off (median of the pairs)   ${f(quantile(throughput, 0.5))}x throughput (cost ${f((1 - quantile(throughput, 0.5)) * 100)}%, target < 10%; ${spread(throughput)}); CPU ${f(quantile(cpu, 0.5))}x per turn (${spread(cpu)})`,
    {
      // A cost under 10%: tracing on keeps at least 0.9 of the throughput without it.
      'tracing.throughput_on_over_off': higher(quantile(throughput, 0.5), 'x', { target: 0.9 }),
      'tracing.cpu_on_over_off': lower(quantile(cpu, 0.5), 'x'),
    },
  );

  child.disconnect();
  await api.close();
  await workers.close();
  redis.disconnect();
  await redisServer.stop();
  rmSync(dir, { recursive: true, force: true });
}

if (process.env.BENCH_ROLE === 'outside') outside();
else await service();
