import http from 'node:http';
import https from 'node:https';
import { UnavailableError } from '../errors.js';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  verifyTls: boolean;
  /** Bytes kept of the response body; the rest is read and dropped, and `truncated` says so. */
  maxBytes: number;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  truncated: boolean;
}

/**
 * One HTTP(S) request with a whole-request timeout and a cap on the kept body. node:http rather
 * than fetch so that PLATFORM_VERIFY_TLS applies to this request only, never to the process.
 * Errors name the host and what went wrong, never the query string or headers.
 */
export function httpRequest(request: HttpRequest): Promise<HttpResponse> {
  const client = request.url.protocol === 'https:' ? https : http;
  const where = `${request.url.protocol}//${request.url.host}`;
  return new Promise((resolve, reject) => {
    const req = client.request(
      request.url,
      {
        method: request.method,
        headers: request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        ...(request.url.protocol === 'https:' ? { rejectUnauthorized: request.verifyTls } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (kept >= request.maxBytes) {
            truncated = true;
            return;
          }
          const room = request.maxBytes - kept;
          if (chunk.length > room) truncated = true;
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(part);
          kept += part.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), truncated });
        });
        res.on('error', (error) => fail(error));
      },
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      req.destroy();
      reject(new UnavailableError(`request to ${where} failed: ${error.message}`));
    };
    const timer = setTimeout(() => fail(new Error(`no complete answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    req.on('error', fail);
    req.end(request.body);
  });
}
