import { ConflictError, NotFoundError, RateLimitedError, UnavailableError, UpstreamError, ValidationError } from '../errors.js';

/**
 * One failure codec for every queue: a processor's domain error crosses Redis as the job's failure
 * reason (JSON) and comes back, where its producer waited, as the same DomainError class with the
 * same message and fields.
 */

/** The domain failures a job reports; each maps back to its DomainError class (`internal`: none). */
export type FailureKind = 'validation' | 'not_found' | 'conflict' | 'rate_limited' | 'upstream' | 'unavailable' | 'internal';

/** What crosses the queue when a job fails. */
export interface JobFailure {
  kind: FailureKind;
  /** For the person reading it; never a secret. */
  message: string;
  /** Validation failures: the messages per field at fault. */
  fields?: Record<string, string[]>;
  /** Unavailable failures: what to do about this cause. */
  remedy?: string;
  /** Rate-limited failures: when to ask again, in seconds. */
  retryAfterSeconds?: number;
}

const DOMAIN_KINDS = [
  ['not_found', NotFoundError],
  ['conflict', ConflictError],
  ['upstream', UpstreamError],
  ['unavailable', UnavailableError],
] as const;

/** The failure a domain error stands for; undefined for any other error (its processor decides). */
export function failureOf(error: unknown): JobFailure | undefined {
  if (error instanceof ValidationError) return { kind: 'validation', message: error.message, fields: error.fields };
  if (error instanceof UnavailableError)
    return { kind: 'unavailable', message: error.message, ...(error.remedy ? { remedy: error.remedy } : {}) };
  if (error instanceof RateLimitedError)
    return { kind: 'rate_limited', message: error.message, retryAfterSeconds: error.retryAfterSeconds };
  const match = DOMAIN_KINDS.find(([, type]) => error instanceof type);
  return match && { kind: match[0], message: (error as Error).message };
}

/** The job's failure reason for `failure`. */
export function encodeFailure(failure: JobFailure): string {
  return JSON.stringify(failure);
}

/**
 * Thrown by a processor: its message is the encoded failure, and `permanent` says another attempt
 * cannot help (the worker then ends the job without retrying).
 */
export class JobFailedError extends Error {
  constructor(
    readonly failure: JobFailure,
    readonly permanent: boolean,
  ) {
    super(encodeFailure(failure));
    this.name = 'JobFailedError';
  }
}

/** Thrown by JobContext.park once the job is set aside: not a failure, so processors let it through. */
export class JobParkedError extends Error {
  constructor() {
    super('the job was set aside until later');
    this.name = 'JobParkedError';
  }
}

/** The failure a reason stands for; undefined for reasons not written by this codec (a stalled job). */
function decodeFailure(failedReason: string | undefined): JobFailure | undefined {
  try {
    const parsed = JSON.parse(failedReason ?? '') as Partial<JobFailure> | null;
    if (typeof parsed?.kind === 'string' && typeof parsed.message === 'string') return parsed as JobFailure;
  } catch {
    // not ours
  }
  return undefined;
}

/** The domain error a failed job stands for, to throw where it was waited for. `job` names it in other failures. */
export function failureError(failedReason: string | undefined, job: string): Error {
  const failure = decodeFailure(failedReason);
  switch (failure?.kind) {
    case 'validation':
      return new ValidationError(failure.fields ?? { detail: [failure.message] });
    case 'not_found':
      return new NotFoundError(failure.message);
    case 'conflict':
      return new ConflictError(failure.message);
    case 'rate_limited':
      return new RateLimitedError(failure.message, failure.retryAfterSeconds ?? 1);
    case 'upstream':
      return new UpstreamError(failure.message);
    case 'unavailable':
      return new UnavailableError(failure.message, { remedy: failure.remedy });
    default:
      // A plain Error: the failure was not a domain one (a bug, a stalled job), and an edge answers it as internal.
      return new Error(`${job} failed: ${failure?.message ?? failedReason ?? 'no reason given'}`);
  }
}

/** The failure as shown in a job's status: its message, or `otherwise` for a reason not ours. */
export function failureMessage(failedReason: string | undefined, otherwise: string): string {
  return decodeFailure(failedReason)?.message ?? otherwise;
}
