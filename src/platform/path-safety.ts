import { ValidationError } from '../kernel/errors.js';

/**
 * Checks that `path` is a relative API path on the configured platform and returns it unchanged.
 * Refused: a scheme or host (`http:`, `//host`), `.` or `..` segments (also percent-encoded),
 * backslashes, control characters (CR/LF among them), `@`, `#`, and a query string (query
 * parameters go in `params`, where they are encoded). Pure, so the rules are tested on their own.
 */
export function assertSafeApiPath(path: string): string {
  const refuse = (why: string): never => {
    throw ValidationError.field('path', `${why}; give a relative API path such as /api/dcim/devices/`);
  };
  if (!path.startsWith('/')) refuse('must start with "/"');
  if (path.startsWith('//')) refuse('must not name a host');
  if (/\p{Cc}/u.test(path)) refuse('must not contain control characters');
  if (path.includes('\\')) refuse('must not contain a backslash');
  if (/[@#?]/.test(path)) refuse('must not contain "@", "#" or "?" (put query parameters in params)');
  if (/^\/[a-z][a-z0-9+.-]*:/i.test(path) || /:\/\//.test(path)) refuse('must not contain a scheme');
  let decoded = path;
  for (let round = 0; round < 3; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return refuse('has a malformed percent-encoding');
    }
    if (next === decoded) break;
    decoded = next;
  }
  if (/[\p{Cc}\\]/u.test(decoded)) refuse('must not contain encoded control characters or backslashes');
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.')) refuse('must not contain "." or ".." segments');
  if (decoded.startsWith('//') || /:\/\//.test(decoded)) refuse('must not name a host, even encoded');
  return path;
}

/** Joins a base URL (`https://host/prefix`) and a checked path; the result stays on that origin. */
export function platformUrl(base: string, path: string, params?: Record<string, unknown>): URL {
  const root = new URL(base);
  const url = new URL(root.origin + root.pathname.replace(/\/+$/, '') + assertSafeApiPath(path));
  if (url.origin !== root.origin) throw ValidationError.field('path', 'leaves the configured platform');
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      url.searchParams.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  return url;
}
