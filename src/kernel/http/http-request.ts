import http from 'node:http';
import https from 'node:https';
import { UnavailableError } from '../errors.js';

export interface HttpRequest {
  /** Default GET. */
  method?: string;
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  /** For the whole exchange, body included. */
  timeoutMs: number;
  /** Default true. Applies to this request only, never to the process. */
  verifyTls?: boolean;
  /** Bytes kept of the response body (default 0); the rest is read and dropped, and `truncated` says so. */
  maxBytes?: number;
  /** A fresh connection, closed afterwards, instead of the shared keep-alive pool (default false). */
  freshConnection?: boolean;
  /** Resolves the host name (an outbound policy can refuse addresses here, where the connection uses them). */
  lookup?: http.RequestOptions['lookup'];
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  truncated: boolean;
}

/**
 * One HTTP(S) exchange on node:http, whose options (TLS verification, lookup, agent) apply to
 * this request alone. Redirects are not followed: the caller sees the 3xx. A failure rejects with
 * an Error whose message says what went wrong (`no answer within N ms` on the timeout) and never
 * carries the URL's query string or the headers.
 */
export function httpRequest(request: HttpRequest): Promise<HttpResponse> {
  const secure = request.url.protocol === 'https:';
  const maxBytes = request.maxBytes ?? 0;
  const headers = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  if (request.freshConnection) headers.connection = 'close';
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      request.url,
      {
        method: request.method ?? 'GET',
        headers,
        ...(request.freshConnection ? { agent: false } : {}),
        ...(request.lookup ? { lookup: request.lookup } : {}),
        ...(secure ? { rejectUnauthorized: request.verifyTls ?? true } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          const room = maxBytes - kept;
          if (chunk.length > room) truncated = true;
          if (room <= 0) return;
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(part);
          kept += part.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), truncated });
        });
        res.on('error', fail);
      },
    );
    function fail(error: Error): void {
      clearTimeout(timer);
      req.destroy();
      reject(error);
    }
    const timer = setTimeout(() => fail(new UnavailableError(`no answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    req.on('error', fail);
    req.end(request.body);
  });
}
