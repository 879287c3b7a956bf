import http from 'node:http';

export interface JsonReply {
  status: number;
  /** The parsed JSON body, or the text when it is not JSON (an event stream, say). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON whose shape the assertions check
  body: any;
  headers: Headers;
}

/** One request to the API with an optional token and JSON body (a string body is sent as is). */
export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  { key, body, headers = {} }: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonReply> {
  const sent: Record<string, string> = { ...(key ? { authorization: `Token ${key}` } : {}), ...headers };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    sent['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers: sent, body: payload });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** How a raw request's body is delimited: Content-Length, chunks, or not at all (no body, as `curl -X POST` sends). */
export type BodyFraming = 'length' | 'chunked' | 'none';

/**
 * One request over node:http with exactly the given headers and framing: fetch refuses a body on
 * GET and always sends `Content-Length: 0` for an empty POST, and these are requests to try too.
 * A connection of its own: a server may close one after refusing a body it did not read.
 */
export function sendRaw(
  url: string,
  method: string,
  { headers = {}, body, framing = 'length' }: { headers?: Record<string, string>; body?: string; framing?: BodyFraming } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: false,
        headers:
          framing === 'chunked'
            ? { ...headers, 'transfer-encoding': 'chunked' }
            : // Node frames a GET's body by no header at all: its bytes would reach the server as a next request.
              framing === 'length' && body !== undefined
              ? { ...headers, 'content-length': String(Buffer.byteLength(body)) }
              : headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    // A request the server never answers fails with what was sent, not as a whole test's timeout.
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer within 30 s to ${method} ${url} (${framing})`)));
    if (framing === 'none') {
      req.removeHeader('content-length');
      req.removeHeader('transfer-encoding');
    }
    req.end(framing === 'none' ? undefined : body);
  });
}

/** A request a recording server received. */
export interface RecordedRequest {
  method?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: unknown;
}

/**
 * A loopback server for the tests of one `describe`: it records each request (its body read
 * whole) and then hands the response to `reply`; `seen` empties before each test.
 */
export function recordingServer(reply: (res: http.ServerResponse) => void): { base: () => string; seen: RecordedRequest[] } {
  const seen: RecordedRequest[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), socket: req.socket });
      reply(res);
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
  });
  return { base: () => base, seen };
}
