import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Protocol-faithful stand-ins for LLM providers on 127.0.0.1: the real paths, auth headers,
 * request and response JSON, tool calls and error bodies of OpenAI, Azure OpenAI, Anthropic,
 * Ollama and Hugging Face (TGI chat completions). One server answers all of them by path.
 */

export interface StubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON whose shape the assertions check
  body: any;
}

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (until the stub closes or `release()` is called). */
  hold?: boolean;
  /** Streamed replies: stop after this many pieces of text until `release()` is called. */
  pauseAfter?: number;
  /** Sent as is (status 200 unless `status` says otherwise), never framed as a stream: a broken answer. */
  raw?: string;
}

export type Protocol = 'openai' | 'azure' | 'anthropic' | 'ollama' | 'huggingface';

export interface StubToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ProviderStub {
  url: string;
  requests: StubRequest[];
  /** Replies used in order, before the default (an echo of the last user message). */
  respondWith(...replies: (StubReply | ((request: StubRequest) => StubReply))[]): void;
  /** Answers every held request with the default reply. */
  release(): void;
  /** Resolves when `count` requests have arrived. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export function protocolOf(path: string): Protocol {
  if (path === '/api/chat') return 'ollama';
  if (path === '/v1/messages') return 'anthropic';
  if (path.startsWith('/openai/deployments/')) return 'azure';
  if (path.startsWith('/hf/')) return 'huggingface';
  return 'openai';
}

export function openAiCompletion(content: string, toolCalls: StubToolCall[] = []): object {
  return {
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'stub-model',
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length ? null : content,
          ...(toolCalls.length
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
}

export function anthropicMessage(content: string, toolUses: StubToolCall[] = []): object {
  return {
    id: 'msg_stub',
    type: 'message',
    role: 'assistant',
    model: 'claude-stub',
    content: [
      ...(content ? [{ type: 'text', text: content }] : []),
      ...toolUses.map((use) => ({ type: 'tool_use', id: use.id, name: use.name, input: use.arguments })),
    ],
    stop_reason: toolUses.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 13, output_tokens: 5 },
  };
}

export function ollamaChat(content: string, toolCalls: Omit<StubToolCall, 'id'>[] = []): object {
  return {
    model: 'llama-stub',
    created_at: '2026-01-01T00:00:00Z',
    message: {
      role: 'assistant',
      content,
      ...(toolCalls.length ? { tool_calls: toolCalls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) } : {}),
    },
    done: true,
    done_reason: 'stop',
    total_duration: 1,
    load_duration: 1,
    prompt_eval_count: 9,
    prompt_eval_duration: 1,
    eval_count: 4,
    eval_duration: 1,
  };
}

/** The provider's own error body for a status. */
export function errorReply(protocol: Protocol, status: number, message: string, headers: Record<string, string> = {}): StubReply {
  const body =
    protocol === 'anthropic'
      ? {
          type: 'error',
          error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message },
        }
      : protocol === 'ollama'
        ? { error: message }
        : { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null } };
  return { status, headers, body };
}

function lastUserText(body: unknown): string {
  const messages: unknown[] = isRecord(body) && Array.isArray(body.messages) ? body.messages : [];
  const user = messages.findLast((message) => isRecord(message) && message.role === 'user' && typeof message.content === 'string');
  return isRecord(user) ? String(user.content) : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A reply in the protocol's own format: asking for `calls` when there are any, otherwise answering `text`. */
export function replyFor(protocol: Protocol, text: string, calls: StubToolCall[] = []): StubReply {
  if (protocol === 'anthropic') return { body: anthropicMessage(text, calls) };
  if (protocol === 'ollama') return { body: ollamaChat(text, calls) };
  return { body: openAiCompletion(text, calls) };
}

/** One piece of a streamed reply on the wire, and whether it carries text. */
interface Frame {
  wire: string;
  text: boolean;
}

/** The reply's text in word-sized pieces (spaces kept), as a model would stream it. */
const pieces = (text: string): string[] => text.match(/\s*\S+\s*/g) ?? [];

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** The whole replies `replyFor` makes, as far as streaming them needs. */
interface AnthropicWhole {
  content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[];
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
}
interface OllamaWhole {
  model: string;
  created_at: string;
  message: { content: string; tool_calls?: unknown[] };
}
interface OpenAiWhole {
  choices: {
    message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
    finish_reason: string;
  }[];
  usage: unknown;
}

/** A whole reply (as `replyFor` makes it) in the protocol's streaming format. */
function streamFrames(protocol: Protocol, reply: unknown, request: StubRequest): { contentType: string; frames: Frame[] } {
  if (protocol === 'anthropic') {
    const body = reply as AnthropicWhole;
    const frames: Frame[] = [
      {
        wire: sse(
          { type: 'message_start', message: { ...body, content: [], stop_reason: null, usage: { ...body.usage, output_tokens: 0 } } },
          'message_start',
        ),
        text: false,
      },
    ];
    body.content.forEach((block, index) => {
      if (block.type === 'text') {
        frames.push({
          wire: sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'),
          text: false,
        });
        for (const piece of pieces(block.text))
          frames.push({
            wire: sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta'),
            text: true,
          });
      } else {
        frames.push({
          wire: sse({ type: 'content_block_start', index, content_block: { ...block, input: {} } }, 'content_block_start'),
          text: false,
        });
        frames.push({
          wire: sse(
            { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } },
            'content_block_delta',
          ),
          text: false,
        });
      }
      frames.push({ wire: sse({ type: 'content_block_stop', index }, 'content_block_stop'), text: false });
    });
    frames.push({
      wire: sse(
        {
          type: 'message_delta',
          delta: { stop_reason: body.stop_reason, stop_sequence: null },
          usage: { output_tokens: body.usage.output_tokens },
        },
        'message_delta',
      ),
      text: false,
    });
    frames.push({ wire: sse({ type: 'message_stop' }, 'message_stop'), text: false });
    return { contentType: 'text/event-stream', frames };
  }
  if (protocol === 'ollama') {
    const { message, ...rest } = reply as OllamaWhole;
    const line = (part: unknown) => `${JSON.stringify(part)}\n`;
    const frames: Frame[] = pieces(message.content).map((piece) => ({
      wire: line({ model: rest.model, created_at: rest.created_at, message: { role: 'assistant', content: piece }, done: false }),
      text: true,
    }));
    frames.push({
      wire: line({
        ...rest,
        message: { role: 'assistant', content: '', ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) },
      }),
      text: false,
    });
    return { contentType: 'application/x-ndjson', frames };
  }
  const { choices, usage, ...meta } = reply as OpenAiWhole;
  const message = choices[0]!.message;
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ ...meta, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const frames: Frame[] = [{ wire: chunk({ role: 'assistant', content: '' }), text: false }];
  for (const piece of pieces(message.content ?? '')) frames.push({ wire: chunk({ content: piece }), text: true });
  (message.tool_calls ?? []).forEach((call, index) => {
    frames.push({
      wire: chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }),
      text: false,
    });
    frames.push({ wire: chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }), text: false });
  });
  frames.push({ wire: chunk({}, choices[0]!.finish_reason), text: false });
  if ((request.body as { stream_options?: { include_usage?: boolean } } | undefined)?.stream_options?.include_usage)
    frames.push({ wire: sse({ ...meta, object: 'chat.completion.chunk', choices: [], usage }), text: false });
  frames.push({ wire: 'data: [DONE]\n\n', text: false });
  return { contentType: 'text/event-stream', frames };
}

function defaultReply(request: StubRequest): StubReply {
  const protocol = protocolOf(request.path);
  return replyFor(protocol, `echo: ${lastUserText(request.body)}`);
}

/** Checks credentials the way each provider does, when the stub is given a key. */
function authFailure(request: StubRequest, key: string | undefined): StubReply | undefined {
  if (!key) return undefined;
  const protocol = protocolOf(request.path);
  const { headers } = request;
  if (protocol === 'anthropic') {
    if (!headers['anthropic-version']) return errorReply(protocol, 400, 'anthropic-version header is required');
    return headers['x-api-key'] === key ? undefined : errorReply(protocol, 401, 'invalid x-api-key');
  }
  if (protocol === 'azure') {
    const ok = headers['api-key'] === key || headers.authorization === `Bearer ${key}`;
    return ok ? undefined : errorReply(protocol, 401, 'Access denied due to invalid subscription key or wrong API endpoint.');
  }
  if (protocol === 'ollama' || !request.path.endsWith('/chat/completions')) return undefined;
  return headers.authorization === `Bearer ${key}`
    ? undefined
    : errorReply(protocol, 401, `Incorrect API key provided: ${String(headers.authorization ?? '').slice(7)}`);
}

export async function startProviderStub(options: { apiKey?: string } = {}): Promise<ProviderStub> {
  const requests: StubRequest[] = [];
  const scripted: (StubReply | ((request: StubRequest) => StubReply))[] = [];
  const held: { request: StubRequest; res: http.ServerResponse; resume?: () => void }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  /** A request that asked for a stream gets a successful reply as one, piece by piece; errors come whole. */
  const send = (res: http.ServerResponse, reply: StubReply, request: StubRequest) => {
    const status = reply.status ?? 200;
    if (reply.raw !== undefined) {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.raw);
      return;
    }
    if (request.body?.stream !== true || status !== 200 || reply.body === undefined) {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
      return;
    }
    const { contentType, frames } = streamFrames(protocolOf(request.path), reply.body, request);
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', ...reply.headers });
    let texts = 0;
    const write = (from: number) => {
      for (let index = from; index < frames.length; index++) {
        const frame = frames[index]!;
        res.write(frame.wire);
        if (frame.text && ++texts === reply.pauseAfter) {
          held.push({ request, res, resume: () => write(index + 1) });
          return;
        }
      }
      res.end();
    };
    write(0);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const text = Buffer.concat(chunks).toString();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep text
      }
      const request: StubRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
      requests.push(request);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const refused = authFailure(request, options.apiKey);
      if (refused) return send(res, refused, request);
      const next = scripted.shift();
      const reply = typeof next === 'function' ? next(request) : (next ?? defaultReply(request));
      if (reply.hold) {
        held.push({ request, res });
        return;
      }
      send(res, reply, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith: (...replies) => {
      scripted.push(...replies);
    },
    release() {
      for (const { request, res, resume } of held.splice(0)) {
        if (resume) resume();
        else send(res, defaultReply(request), request);
      }
    },
    received: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    async close() {
      for (const { res } of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
