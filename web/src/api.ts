/** The service's HTTP API as the pages use it: `Authorization: Token <key>`, JSON, plain error messages. */
import type { Page } from '../../src/api/openapi-types.js';

export type { Page };

/** One Server-Sent Event: its name and its (JSON) data. */
export interface ServerEvent {
  event: string;
  data: string;
}

/** Messages per field of a refused request (`{field: [messages]}`), as the service answers 400. */
export type FieldErrors = Record<string, string[]>;

/** A request the service refused or failed; `message` is meant for people, `fields` says which input was wrong. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly fields: FieldErrors = {},
  ) {
    super(message);
  }
}

const UNREACHABLE = 'The service cannot be reached. Check the connection and try again.';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{detail}` or `{field: [messages]}` as one sentence; a generic one for anything else. */
function describeFailure(body: unknown, status: number): string {
  if (isRecord(body)) {
    if (typeof body.detail === 'string') return body.detail;
    const parts = Object.entries(body).map(([field, messages]) => {
      const text = [messages].flat().map(String).join(' ');
      return field === 'non_field_errors' ? text : `${field}: ${text}`;
    });
    if (parts.length > 0) return parts.join(' ');
  }
  return `The service answered with HTTP ${status}.`;
}

/** The `{field: [messages]}` of a 400 answer; none for `{detail}` and anything else. */
function fieldErrors(body: unknown, status: number): FieldErrors {
  if (status !== 400 || !isRecord(body) || typeof body.detail === 'string') return {};
  return Object.fromEntries(Object.entries(body).map(([field, messages]) => [field, [messages].flat().map(String)]));
}

/** What to tell a person about any error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

export class Api {
  /**
   * @param token the API token's key.
   * @param onUnauthorized called with the service's message when it refuses the token (revoked, expired).
   */
  constructor(
    private readonly token: string,
    private readonly onUnauthorized: (message: string) => void,
  ) {}

  /** The Authorization header's value, for requests this class does not send itself (Swagger UI's). */
  authorization(): string {
    return `Token ${this.token}`;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /**
   * Every item of a list, page after page (its `next` links, on this page's origin): what an
   * administrator keeps may be more than one page holds (MAX_PAGE_SIZE).
   */
  async every<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    for (let next: string | null = path; next !== null;) {
      const page: Page<T> = await this.get<Page<T>>(next);
      items.push(...page.results);
      const link = page.next === null ? null : new URL(page.next, window.location.href);
      next = link && link.pathname + link.search;
    }
    return items;
  }

  /** Sends a request and resolves to its JSON body (undefined for 204); throws ApiError otherwise. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(method, path, options);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Reads an event stream with fetch (EventSource cannot send the token) until it ends. */
  async *events(path: string): AsyncGenerator<ServerEvent> {
    const response = await this.fetch('GET', path, { headers: { accept: 'text/event-stream' } });
    if (!response.body) return;
    yield* parseEventStream(response.body);
  }

  private async fetch(method: string, path: string, { body, headers = {} }: RequestOptions): Promise<Response> {
    const response = await fetch(path, {
      method,
      cache: 'no-store',
      headers: {
        authorization: this.authorization(),
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch(() => {
      // fetch rejects only when no answer came at all.
      throw new ApiError(UNREACHABLE, 0);
    });
    if (response.ok) return response;
    let parsed: unknown;
    try {
      parsed = await response.json();
    } catch {
      parsed = undefined;
    }
    const message = describeFailure(parsed, response.status);
    if (response.status === 401) this.onUnauthorized(message);
    throw new ApiError(message, response.status, fieldErrors(parsed, response.status));
  }
}

function parseEventBlock(block: string): ServerEvent | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length > 0 ? { event, data: data.join('\n') } : null;
}

/** The events of a `text/event-stream` body, as they arrive; cancels the body when the reader stops early. */
async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseEventBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
