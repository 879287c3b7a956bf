import { parse as parseYaml } from 'yaml';
import { httpRequest, type HttpRequest, type HttpResponse } from '../../kernel/http/http-request.js';
import { AuthenticationError, DomainError, PermissionDeniedError, UnavailableError } from '../../kernel/errors.js';
import { platformUrl } from '../path-safety.js';
import { PlatformHttpError, type ApiRequest, type ApiResult, type HttpMethod, type PlatformClient } from '../platform.port.js';
import { inSpan, SpanKind, SpanStatusCode, traceCarrier } from '../../kernel/tracing/tracing.js';

export interface PlatformClientOptions {
  /** Platform root, e.g. `https://nautobot.example.net` (no trailing slash needed). */
  baseUrl: string;
  token?: string;
  verifyTls: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Only GET is allowed when set. */
  readOnly: boolean;
  /** What a refused write says (default: PLATFORM_READ_ONLY is set). */
  readOnlyReason?: string;
  /**
   * The operation's path template in the platform's description (`/api/dcim/devices/{id}/`) for a
   * concrete path, which names the request's span; a path it does not know is not named (a path
   * may hold anything the model wrote).
   */
  pathTemplate?: (method: HttpMethod, path: string) => string | undefined;
  /**
   * Sending no token, what a 401 says to do (the setting that supplies one): the platform's own
   * "credentials were not provided" does not say which setting is missing.
   */
  missingCredential?: string;
}

export const TRUNCATION_MARKER = '[response truncated at PLATFORM_MAX_RESPONSE_BYTES]';

function parseBody(response: HttpResponse): unknown {
  if (response.body === '') return null;
  if (!response.truncated && /json/i.test(String(response.headers['content-type'] ?? 'json'))) {
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      return response.body;
    }
  }
  return response.truncated ? `${response.body}\n${TRUNCATION_MARKER}` : response.body;
}

function countOf(data: unknown): number | null {
  if (Array.isArray(data)) return data.length;
  if (data && typeof data === 'object' && typeof (data as { count?: unknown }).count === 'number') return (data as { count: number }).count;
  return null;
}

/**
 * Calls the platform's REST API. Paths are checked by assertSafeApiPath and joined to the one
 * configured base URL; the token travels only in `Authorization: Token ...`.
 */
export class HttpPlatformClient implements PlatformClient {
  constructor(private readonly options: PlatformClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  get token(): string | undefined {
    return this.options.token;
  }

  /** The same platform with another token (and read-only rule): a user's own rights instead of the service's. */
  withToken(token: string | undefined, readOnly: { readOnly: boolean; readOnlyReason?: string } = this.options): HttpPlatformClient {
    // The remedy names the configured credential's setting: another token is someone else's to supply.
    const { missingCredential: _configured, ...options } = this.options;
    return new HttpPlatformClient({ ...options, token, readOnly: readOnly.readOnly, readOnlyReason: readOnly.readOnlyReason });
  }

  async request({ method, path, params, body }: ApiRequest): Promise<ApiResult> {
    if (this.options.readOnly && method !== 'GET') {
      throw new PermissionDeniedError(
        `${method} refused: ${this.options.readOnlyReason ?? 'PLATFORM_READ_ONLY is set, only GET requests are allowed'}`,
      );
    }
    const url = platformUrl(this.options.baseUrl, path, params);
    // A DELETE carries a body only to remove many objects at once (a list of their ids).
    const sent = body !== undefined && method !== 'GET' ? JSON.stringify(body) : undefined;
    const response = await this.exchange(() => this.options.pathTemplate?.(method, path), {
      method,
      url,
      headers: this.headers(sent !== undefined),
      body: sent,
      timeoutMs: this.options.timeoutMs,
      verifyTls: this.options.verifyTls,
      maxBytes: this.options.maxResponseBytes,
    });
    const data = parseBody(response);
    if (response.status === 401 && !this.options.token && this.options.missingCredential) {
      throw new AuthenticationError(
        `${method} ${path}: the platform wants a credential and none was sent; ${this.options.missingCredential}`,
      );
    }
    if (response.status >= 400) throw new PlatformHttpError(response.status, data, method, path);
    return { status: response.status, data, count: countOf(data), ...(response.truncated ? { truncated: true as const } : {}) };
  }

  /** GETs a JSON or YAML document (the OpenAPI description), refusing one larger than `maxBytes`. */
  async fetchJson(path: string, maxBytes: number): Promise<unknown> {
    const [pathname = '', query] = path.split('?');
    // The description's path is a setting, not anything a model wrote.
    const response = await this.exchange(() => pathname, {
      method: 'GET',
      url: platformUrl(this.options.baseUrl, pathname, Object.fromEntries(new URLSearchParams(query ?? ''))),
      headers: this.headers(false),
      timeoutMs: this.options.timeoutMs,
      verifyTls: this.options.verifyTls,
      maxBytes,
    });
    if (response.status >= 400) throw new PlatformHttpError(response.status, parseBody(response), 'GET', path);
    if (response.truncated) throw new DomainError(`GET ${path}: the document is larger than ${maxBytes} bytes`);
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      try {
        return parseYaml(response.body) as unknown;
      } catch {
        throw new DomainError(`GET ${path}: the answer is neither JSON nor YAML`);
      }
    }
  }

  /**
   * One exchange with the platform, in a client span named by its method and `template`, the path's
   * template (never the concrete path, its ids or its filters), with the answer's status; the
   * trace goes on at the platform (`traceparent`). Errors name the host and what went wrong, never
   * the query string or headers.
   */
  private exchange(template: () => string | undefined, request: HttpRequest & { method: HttpMethod }): Promise<HttpResponse> {
    const { method } = request;
    return inSpan(method, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method } }, async (span) => {
      if (span.isRecording()) {
        const named = template();
        span.setAttribute('server.address', request.url.hostname);
        if (named) span.setAttribute('url.template', named).updateName(`${method} ${named}`);
      }
      let response: HttpResponse;
      try {
        response = await httpRequest({ ...request, headers: { ...request.headers, ...traceCarrier() } });
      } catch (error) {
        throw new UnavailableError(`request to ${request.url.protocol}//${request.url.host} failed: ${(error as Error).message}`, {
          cause: error,
          remedy: 'Check that the platform (PLATFORM_ENV and its PLATFORM_URL_*) is reachable, then retry.',
        });
      }
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    });
  }

  private headers(withBody: boolean): Record<string, string> {
    return {
      accept: 'application/json',
      ...(withBody ? { 'content-type': 'application/json' } : {}),
      ...(this.options.token ? { authorization: `Token ${this.options.token}` } : {}),
    };
  }
}
