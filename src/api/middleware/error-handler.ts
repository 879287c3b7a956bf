import type { ErrorRequestHandler, Request, Response } from 'express';
import {
  AuthenticationError,
  BatchValidationError,
  ConflictError,
  IdempotencyKeyReusedError,
  DomainError,
  NotAcceptableError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  UnavailableError,
  UpstreamError,
  ValidationError,
} from '../../kernel/errors.js';
import { isDocumentedPath } from '../openapi.js';

/** An error raised by the OpenAPI validator or a body parser. */
interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: { path?: string; message?: string; errorCode?: string }[];
}

const DETAIL_BY_STATUS: Record<number, string> = {
  401: 'Authentication credentials were not provided.',
  403: 'You do not have permission to perform this action.',
  404: 'Not found.',
  413: 'Request body is larger than 1 MiB.',
  415: 'Unsupported media type in request; send application/json.',
};

/** `/body/name` → `name`; `/body/parameters/path` → `parameters.path`; `/body` → `non_field_errors`. */
function fieldOf(path: string | undefined): string {
  const segments = (path ?? '').split(/[./]/).filter(Boolean).slice(1);
  return segments.length > 0 ? segments.join('.') : 'non_field_errors';
}

/** A malformed id (or other path parameter) names no record, whatever else is wrong with the request. */
function isPathParameterError(error: HttpLikeError): boolean {
  return (error.errors ?? []).some((item) => /^[./]params[./]/.test(item.path ?? ''));
}

/** What each pattern of the OpenAPI document asks for, in words: a reader should not have to read a regular expression. */
const PATTERN_MEANINGS: Record<string, string> = {
  '\\S': 'This field may not be blank.',
  '^(https?://[^\\s]+)?$': 'Enter a URL that starts with http:// or https://.',
  '^/[^\\s]*$': 'Enter a path that starts with "/", without spaces.',
  '^(/[^\\s]*)?$': 'Enter a path that starts with "/", without spaces, or leave it empty.',
  '^file://\\S*$': 'Enter a file:// URI, without spaces.',
  '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$':
    'Enter a repository as owner/name: letters, digits, "_", "." and "-", up to 100 of each (a Git URL or a local folder goes in url).',
  '^[A-Za-z0-9_.-]{1,100}$': 'Use letters, digits, "_", "." and "-" only, up to 100.',
  '^[\\w.@+-]+$': 'Use letters, digits and "@", ".", "+", "-", "_" only.',
};

/** The validator's terse messages, said as the platform's own API says them. */
const MESSAGE_WORDS: ReadonlyArray<[RegExp, (match: RegExpExecArray) => string]> = [
  [/^must match pattern "(.*)"$/, ([, pattern = '']) => PATTERN_MEANINGS[pattern] ?? `Enter a value that matches ${pattern}.`],
  [/^must NOT have fewer than 1 characters$/, () => 'This field may not be blank.'],
  [/^must NOT have fewer than (\d+) characters$/, ([, count]) => `Ensure this field has at least ${count} characters.`],
  [/^must NOT have more than (\d+) characters$/, ([, count]) => `Ensure this field has no more than ${count} characters.`],
  [/^must NOT have more than (\d+) items$/, ([, count]) => `Ensure this field has no more than ${count} elements.`],
  [/^must NOT have fewer than 1 items$/, () => 'This list may not be empty.'],
  [/^must NOT have fewer than (\d+) items$/, ([, count]) => `Ensure this field has at least ${count} elements.`],
  [/^must match format "uuid"$/, () => 'Must be a valid UUID.'],
  [/^must NOT have more than (\d+) properties$/, ([, count]) => `Ensure this object has no more than ${count} keys.`],
  [/^must have required property /, () => 'This field is required.'],
  [/^must be boolean$/, () => 'Must be a valid boolean.'],
  [/^must be number$/, () => 'A valid number is required.'],
  [/^must be integer$/, () => 'A valid integer is required.'],
  [/^must be string$/, () => 'Not a valid string.'],
  [/^must be object$/, () => 'Expected a JSON object.'],
  [/^must be array$/, () => 'Expected a list of items.'],
  [/^must be equal to one of the allowed values: (.*)$/, ([, values]) => `Not a valid choice; choose one of: ${values}.`],
  [/^must be >= (\S+)$/, ([, bound]) => `Ensure this value is greater than or equal to ${bound}.`],
  [/^must be <= (\S+)$/, ([, bound]) => `Ensure this value is less than or equal to ${bound}.`],
];

/** The validator's message for one failed check, in words: a reader should not have to read a schema. */
function readableMessage(item: { message?: string; errorCode?: string }): string {
  if (item.errorCode === 'additionalProperties.openapi.validation') return 'This field is not allowed.';
  const message = item.message ?? 'Invalid value.';
  for (const [pattern, words] of MESSAGE_WORDS) {
    const match = pattern.exec(message);
    if (match) return words(match);
  }
  return message;
}

/** What a JSON body that is not an object is, for the answer that asks for one. */
function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * The body parser takes only an object or an array: another JSON value (`null`, `5`) is valid JSON
 * all the same, and is answered as the wrong kind of data rather than as unreadable.
 */
function parseFailure(http: HttpLikeError & { body?: unknown }): Record<string, string[]> | { detail: string } {
  try {
    const value: unknown = typeof http.body === 'string' ? JSON.parse(http.body) : undefined;
    if (value !== undefined) return { non_field_errors: [`Invalid data. Expected a JSON object, but got ${jsonKind(value)}.`] };
  } catch {
    // Not JSON at all: the parser's own words say where.
  }
  return { detail: `JSON parse error - ${http.message}` };
}

type FieldMessages = Record<string, string[]>;
type ValidatorItem = NonNullable<HttpLikeError['errors']>[number];

/**
 * What a write that takes one record or a list of them (`oneOf`) hears about the shape it was not
 * sent in: once the body's own problems are said, the other shape's are no news.
 */
const OTHER_SHAPE = new Set(['must be object', 'must be array', 'must match exactly one schema in oneOf']);

function bodyProblems(errors: ValidatorItem[]): ValidatorItem[] {
  const otherShape = (item: ValidatorItem) => /^[./]body$/.test(item.path ?? '') && OTHER_SHAPE.has(item.message ?? '');
  const own = errors.filter((item) => !otherShape(item));
  return own.length > 0 ? own : errors.filter((item) => item.message !== 'must match exactly one schema in oneOf');
}

/** Messages by field, each said once (a blank value fails both its length and its pattern in the same words). */
function addMessage(fields: Map<string, string[]>, field: string, message: string): void {
  const said = fields.get(field) ?? [];
  if (!said.includes(message)) fields.set(field, [...said, message]);
}

/**
 * The validator's problems, by field: `{field: [messages]}`, or for a list body whose problems are
 * all in its items, one such object per item in the list's order (Nautobot answers bulk writes so).
 */
function validationBody(error: HttpLikeError, body: unknown): FieldMessages | FieldMessages[] {
  const errors = bodyProblems(error.errors ?? []);
  const itemOf = (item: ValidatorItem) => /^[./]body[./](\d+)(?:[./]|$)/.exec(item.path ?? '')?.[1];
  if (Array.isArray(body) && errors.length > 0 && errors.every((item) => itemOf(item) !== undefined)) {
    // Maps, not objects: field names come from the client and may be `__proto__` or `valueOf`.
    const items = body.map(() => new Map<string, string[]>());
    for (const item of errors) {
      const index = Number(itemOf(item));
      const field = fieldOf(item.path).split('.').slice(1).join('.') || 'non_field_errors';
      if (items[index]) addMessage(items[index], field, readableMessage(item));
    }
    return items.map((fields) => Object.fromEntries(fields));
  }
  const fields = new Map<string, string[]>();
  for (const item of errors) addMessage(fields, fieldOf(item.path), readableMessage(item));
  return fields.size > 0 ? Object.fromEntries(fields) : { non_field_errors: [error.message ?? 'Invalid request.'] };
}

function send(res: Response, status: number, body: object): void {
  if (status === 503) res.setHeader('Retry-After', '5');
  res.status(status).json(body);
}

/**
 * The one place errors become HTTP answers: domain errors by class, validator and parser errors by
 * status, anything else a generic 500 with the request id (the details go to the log only).
 */
export function errorHandler(): ErrorRequestHandler {
  return (thrown, req, res, next) => {
    if (res.headersSent) return next(thrown);
    try {
      answer(res.locals.authFailure ?? thrown, req, res);
    } catch (failure) {
      // Never fall through to Express's own handler: it would answer HTML with a stack trace.
      internalError(failure, req, res);
    }
  };
}

function internalError(error: unknown, req: Request, res: Response): void {
  res.locals.logger?.error('unhandled error', {
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
    method: req.method,
    path: req.path,
  });
  // Written directly, not through res.json: a failure of res.json itself may be what brought us here.
  res
    .status(500)
    .type('application/json')
    .end(JSON.stringify({ detail: `Internal server error (request ${res.locals.requestId ?? 'unknown'}).` }));
}

function answer(error: unknown, req: Request, res: Response): void {
  if (error instanceof BatchValidationError) return send(res, 400, error.items);
  if (error instanceof ValidationError) return send(res, 400, error.fields);
  if (error instanceof AuthenticationError) return send(res, 401, { detail: error.message });
  if (error instanceof PermissionDeniedError) return send(res, 403, { detail: error.message });
  if (error instanceof NotFoundError) return send(res, 404, { detail: error.message });
  if (error instanceof NotAcceptableError) return send(res, 406, { detail: error.message });
  if (error instanceof UnavailableError)
    return send(res, 503, { detail: `Service unavailable: ${error.message}.${error.remedy ? ` ${error.remedy}` : ''}` });
  if (error instanceof ConflictError) return send(res, 409, { detail: error.message });
  if (error instanceof IdempotencyKeyReusedError) return send(res, 422, { detail: error.message });
  if (error instanceof UpstreamError) return send(res, 502, { detail: `Upstream failure: ${error.message}.` });
  if (error instanceof RateLimitedError) {
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
    return send(res, 429, { detail: error.message });
  }

  const http = (error ?? {}) as HttpLikeError;
  const status = http.status ?? http.statusCode;
  if (!(error instanceof DomainError) && status && status >= 400 && status < 500) {
    if (http.type === 'entity.parse.failed') return send(res, 400, parseFailure(http));
    // Nautobot answers 404 for a malformed id, and so do we.
    if (status === 400 && isPathParameterError(http)) {
      return send(res, 404, { detail: DETAIL_BY_STATUS[404] as string });
    }
    if (status === 400) return send(res, 400, validationBody(http, req.body));
    if (status === 405) return send(res, 405, { detail: `Method "${req.method}" not allowed.` });
    // As on Nautobot, every API path ends with a slash: say so rather than only "not found".
    if (status === 404 && !req.path.endsWith('/') && isDocumentedPath(`${req.path}/`)) {
      return send(res, 404, { detail: `Not found. API paths end with a slash: ${req.path}/` });
    }
    return send(res, status, { detail: DETAIL_BY_STATUS[status] ?? http.message ?? 'Request refused.' });
  }
  internalError(error, req, res);
}
