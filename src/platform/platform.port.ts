import { DomainError } from '../kernel/errors.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ApiRequest {
  method: HttpMethod;
  path: string;
  params?: Record<string, unknown>;
  body?: unknown;
}

export interface ApiResult {
  status: number;
  data: unknown;
  /** `count` of a list response, else the number of items of an array, else null. */
  count: number | null;
  /** Set when the body was cut at PLATFORM_MAX_RESPONSE_BYTES. */
  truncated?: true;
}

/** The platform answered with an error status; `body` is its own error body (parsed when JSON). */
export class PlatformHttpError extends DomainError {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} answered ${status}`);
  }
}

/** The platform's REST API, called with one token (the service's or a user's). */
export interface PlatformClient {
  readonly token: string | undefined;
  /** The same platform with another token (and read-only rule): a user's own rights instead of the service's. */
  withToken(token: string | undefined, readOnly?: { readOnly: boolean; readOnlyReason?: string }): PlatformClient;
  /** Throws PlatformHttpError when the platform answers with an error status. */
  request(request: ApiRequest): Promise<ApiResult>;
}
