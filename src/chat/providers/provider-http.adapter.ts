import { setTimeout as delay } from 'node:timers/promises';
import { cappedResponse } from '../../kernel/http/capped-response.js';
import { linkedSignal } from '../../kernel/linked-signal.js';
import { OutboundRefusedError } from '../../kernel/http/outbound-policy.js';
import { ProviderError, type ProviderCallPolicy, type ProviderFailure } from './provider.port.js';
import { UnavailableError, UpstreamError } from '../../kernel/errors.js';

/** A Retry-After longer than this is not waited for in-process: the job's own backoff takes over. */
const MAX_RETRY_AFTER_MS = 30_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, in milliseconds. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function failureOfStatus(status: number): ProviderFailure {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_found';
  if (status >= 500 || status === 408) return 'server';
  return 'bad_request';
}

function errorCode(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function refusal(error: unknown): OutboundRefusedError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof OutboundRefusedError) return current;
  }
  return undefined;
}

/** The answer size limit when the policy sets none (PROVIDER_MAX_RESPONSE_BYTES's default). */
const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const isRedirect = (status: number) => status >= 300 && status < 400 && status !== 304;

/**
 * One attempt's HTTP exchange: a `fetch` to hand to an SDK, which applies the time limit and
 * remembers the last response, so every SDK's failure is classified the same way (by status and
 * Retry-After) whatever error class it throws.
 */
class Exchange {
  private response?: { status: number; retryAfterMs?: number };
  private timedOut = false;
  private oversized = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly send: typeof fetch,
    private readonly maxBytes: number,
  ) {}

  /** The response with a body that fails once it passes `maxBytes` (a huge answer is never read whole). */
  private capped(response: Response): Response {
    return cappedResponse(response, this.maxBytes, () => {
      this.oversized = true;
      return new UpstreamError(`the answer is larger than ${this.maxBytes} bytes`);
    });
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const timeout = new AbortController();
    const timer = setTimeout(() => {
      this.timedOut = true;
      timeout.abort(new UnavailableError(`no answer within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    // Linked for the whole exchange, body included: the time limit covers the answer's start, the
    // SDK's and the call's signals its end too (the call's signal is its own, let go after it).
    const { signal } = linkedSignal([timeout.signal, init?.signal ?? undefined, this.signal]);
    try {
      const response = await this.send(input, { ...init, signal });
      this.response = { status: response.status, retryAfterMs: retryAfterMs(response.headers) };
      return this.capped(response);
    } finally {
      clearTimeout(timer);
    }
  };

  classify(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    if (this.timedOut)
      return new ProviderError('timeout', `no answer within ${Math.round(this.timeoutMs / 1_000)} s`, undefined, undefined, {
        cause: error,
      });
    if (this.oversized) {
      return new ProviderError(
        'invalid_response',
        `the answer is larger than ${this.maxBytes} bytes (PROVIDER_MAX_RESPONSE_BYTES)`,
        this.response?.status,
        undefined,
        { cause: error },
      );
    }
    const refused = refusal(error);
    if (refused) return new ProviderError('configuration', refused.message, undefined, undefined, { cause: error });
    const response = this.response;
    if (response && isRedirect(response.status)) {
      return new ProviderError(
        'configuration',
        `the endpoint answered a redirect (HTTP ${response.status}), which is not followed: set hosted_endpoint to the final address`,
        response.status,
        undefined,
        { cause: error },
      );
    }
    if (response && response.status >= 400) {
      return new ProviderError(failureOfStatus(response.status), `HTTP ${response.status}`, response.status, response.retryAfterMs, {
        cause: error,
      });
    }
    if (response)
      return new ProviderError('invalid_response', 'the answer is not what the provider API promises', response.status, undefined, {
        cause: error,
      });
    const code = errorCode(error);
    return new ProviderError('network', code ? `connection failed (${code})` : 'connection failed', undefined, undefined, { cause: error });
  }
}

/** SDK-side time limit: a margin above ours, so our limit (classified as a timeout) fires first. */
export function sdkTimeoutMs(policy: ProviderCallPolicy): number {
  return policy.timeoutMs * 2;
}

function backoffMs(retry: number): number {
  const ceiling = Math.min(BACKOFF_BASE_MS * 2 ** retry, BACKOFF_CAP_MS);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * Runs one provider call with the policy's time limit per attempt and retries on 429, 5xx,
 * timeouts and connection failures: waiting what Retry-After asks when the provider says,
 * exponential backoff with jitter otherwise. `attempt` receives the `fetch` to give the SDK.
 */
export async function callProvider<T>(
  policy: ProviderCallPolicy,
  options: CallOptions,
  attempt: (fetch: typeof globalThis.fetch) => Promise<T>,
): Promise<T> {
  const sleep = policy.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }));
  for (let retry = 0; ; retry++) {
    const exchange = new Exchange(
      policy.timeoutMs,
      options.signal,
      policy.fetch ?? fetch,
      policy.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    );
    try {
      return await attempt(exchange.fetch);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure = exchange.classify(error);
      const wait = failure.retryAfterMs ?? backoffMs(retry);
      if (!failure.transient || retry >= policy.maxRetries || wait > MAX_RETRY_AFTER_MS) throw failure;
      await sleep(wait, options.signal);
    }
  }
}
