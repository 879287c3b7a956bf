/**
 * Pieces of the chat benchmarks: the load loop, its figures, an instant OpenAI-protocol answer, the
 * model and token the turns use and a logger that costs what a real one does.
 */
import { Writable } from 'node:stream';
import winston from 'winston';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import type { Records } from '../../src/records/records.js';

/** The environment variable the model's secret names: a child process that inherits the environment finds the key too. */
const KEY_VARIABLE = 'AIOPS_BENCH_PROVIDER_KEY';

export interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Runs `total` operations from `concurrency` loops; `operation` gets its loop index and answers false on failure. */
export async function drive(total: number, concurrency: number, operation: (loop: number) => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        if (!(await operation(loop))) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1_000;
  latencies.sort((a, b) => a - b);
  return { perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures };
}

/** `text` in OpenAI's streaming format: one chunk per word, then the usage, then [DONE]. */
export function streamedAnswer(text: string): string {
  const chunk = (delta: object, finish: string | null = null, usage?: object) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  const words = text.match(/\S+\s*/g) ?? [];
  return [
    chunk({ role: 'assistant', content: '' }),
    ...words.map((word) => chunk({ content: word })),
    chunk({}, 'stop'),
    chunk({}, null, { prompt_tokens: 1, completion_tokens: words.length, total_tokens: words.length + 1 }),
    'data: [DONE]\n\n',
  ].join('');
}

/** Real loggers that format every line, writing nowhere: the cost of logging is measured, not the terminal's. */
export function discardingLogger(): winston.Logger {
  return winston.createLogger({
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Stream({ stream: new Writable({ write: (_c, _e, done) => done() }) })],
  });
}

/** The default model, the OpenAI protocol at `providerUrl`, and a chat token for the turns: answers its key and user. */
export async function createChatUser(records: Records, providerUrl: string): Promise<{ key: string; userId: string }> {
  process.env[KEY_VARIABLE] = 'sk-bench';
  await records.secrets.create(
    { name: 'bench-key', description: '', provider: 'environment-variable', parameters: { variable: KEY_VARIABLE } },
    OPERATOR,
  );
  await records.llmModels.create(
    {
      name: 'bench-model',
      description: '',
      provider: 'openai',
      model_secret_key: 'bench-key',
      hosted_endpoint: `${providerUrl}/v1`,
      api_version: '',
      is_default: true,
      temperature: 0,
      model_config: {},
      system_prompt: 'Answer briefly.',
    },
    OPERATOR,
  );
  const { key, token } = await records.tokens.create({
    username: 'bench',
    superuser: false,
    permissions: ['ai_ops.chat'],
    writeEnabled: true,
    expires: null,
  });
  return { key, userId: token.user_id };
}
