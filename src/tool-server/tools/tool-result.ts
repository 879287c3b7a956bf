import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AuthenticationError, DomainError, PermissionDeniedError, UnavailableError, ValidationError } from '../../kernel/errors.js';
import { UnknownOperationError } from '../../endpoint-search/operation-lookup.js';
import { PlatformHttpError } from '../../platform/platform.port.js';
import { redactSecrets } from '../../kernel/security/redact-secrets.js';

/** A success: the structured result and the same JSON as text, for clients without structured output. */
export function success<T extends Record<string, unknown>>(structured: T): CallToolResult & { structuredContent: T } {
  return { content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

const REMEDIES: Record<number, string> = {
  400: 'The platform rejected the request; details holds its messages per field. Fix the params or body and retry.',
  401: 'Authentication failed: check PLATFORM_TOKEN, that the token has not expired or been revoked, its permissions, and that PLATFORM_ENV selects the platform the token belongs to.',
  403: 'Permission denied: the token is valid but lacks the permission for this object type and action (or is read-only). Ask an administrator to grant it, or use a token that has it.',
  404: 'Not found: check the path (use the path returned by the endpoint search tool, including its /api prefix and trailing slash) and that the object id exists.',
  405: 'This method is not allowed on this path: search the endpoints again and use one of the listed methods.',
  409: 'Conflict with the current state of the object: re-read it and retry.',
  429: 'Rate limited by the platform: wait a little and retry, with fewer requests at once.',
  500: 'The platform failed while handling the request: retry later, and check the platform logs if it keeps failing.',
};

function remedy(status: number): string {
  return REMEDIES[status] ?? (status >= 500 ? REMEDIES[500]! : 'The platform refused the request; see details.');
}

/**
 * Maps an error to the tool error shape `{status: "error", error, details}` with `isError` set.
 * Platform answers keep their own error body in `details.body`; secrets never appear.
 */
export function failure(error: unknown, secrets: string[] = []): CallToolResult {
  let body: { status: 'error'; error: string; details: Record<string, unknown> };
  if (error instanceof PlatformHttpError) {
    body = {
      status: 'error',
      error: `${error.method} ${error.path} failed with HTTP ${error.status}`,
      details: { http_status: error.status, remedy: remedy(error.status), body: error.body },
    };
  } else if (error instanceof UnknownOperationError) {
    body = {
      status: 'error',
      error: `no operation ${error.method} ${error.path} in the platform's API description`,
      details: { closest: error.closest, remedy: 'Use one of the closest operations, or search the endpoints again.' },
    };
  } else if (error instanceof ValidationError) {
    body = { status: 'error', error: 'invalid request', details: { fields: error.fields } };
  } else if (error instanceof PermissionDeniedError || error instanceof AuthenticationError) {
    body = { status: 'error', error: error.message, details: {} };
  } else if (error instanceof UnavailableError) {
    // The cause's own remedy: an index still building, a missing worker, a held lock and a model
    // that does not load each need something different.
    body = { status: 'error', error: error.message, details: { remedy: error.remedy ?? 'Retry shortly.' } };
  } else if (error instanceof DomainError) {
    body = { status: 'error', error: error.message, details: {} };
  } else {
    body = { status: 'error', error: 'internal error', details: { message: error instanceof Error ? error.message : String(error) } };
  }
  return { isError: true, content: [{ type: 'text', text: redactSecrets(JSON.stringify(body, null, 2), secrets) }] };
}
