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
  body: any;
}

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (until the stub closes or `release()` is called). */
  hold?: boolean;
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
            ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) }
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
    message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) } : {}) },
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
      ? { type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message } }
      : protocol === 'ollama'
        ? { error: message }
        : { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null } };
  return { status, headers, body };
}

function lastUserText(protocol: Protocol, body: any): string {
  const messages: any[] = body?.messages ?? [];
  const user = [...messages].reverse().find((message) => message.role === 'user' && typeof message.content === 'string');
  return String(user?.content ?? '');
}

/** A reply in the protocol's own format: asking for `calls` when there are any, otherwise answering `text`. */
export function replyFor(protocol: Protocol, text: string, calls: StubToolCall[] = []): StubReply {
  if (protocol === 'anthropic') return { body: anthropicMessage(text, calls) };
  if (protocol === 'ollama') return { body: ollamaChat(text, calls) };
  return { body: openAiCompletion(text, calls) };
}

function defaultReply(request: StubRequest): StubReply {
  const protocol = protocolOf(request.path);
  return replyFor(protocol, `echo: ${lastUserText(protocol, request.body)}`);
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
  return headers.authorization === `Bearer ${key}` ? undefined : errorReply(protocol, 401, `Incorrect API key provided: ${String(headers.authorization ?? '').slice(7)}`);
}

export async function startProviderStub(options: { apiKey?: string } = {}): Promise<ProviderStub> {
  const requests: StubRequest[] = [];
  const scripted: (StubReply | ((request: StubRequest) => StubReply))[] = [];
  const held: { request: StubRequest; res: http.ServerResponse }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  const send = (res: http.ServerResponse, reply: StubReply) => {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
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
      if (refused) return send(res, refused);
      const next = scripted.shift();
      const reply = typeof next === 'function' ? next(request) : (next ?? defaultReply(request));
      if (reply.hold) {
        held.push({ request, res });
        return;
      }
      send(res, reply);
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
      for (const { request, res } of held.splice(0)) send(res, defaultReply(request));
    },
    received: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    async close() {
      for (const { res } of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
