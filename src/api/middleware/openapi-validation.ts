import { createRequire } from 'node:module';
import { Router, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { isCalendarDate, isCalendarDateTime } from '../../kernel/calendar-date.js';
import type { OpenApiDocument } from '../openapi.js';

type PathToRegexp = (path: string, options?: object) => { regexp: RegExp; keys: unknown[] };

/**
 * express-openapi-validator (5.6) compiles the pattern of each documented path on every request to
 * find its operation. The patterns are the document's, few and fixed, and a compiled one holds no
 * state (no `g` flag): each is compiled once per process and options instead, through the
 * path-to-regexp module the validator itself loads.
 */
function compilePatternsOnce(): void {
  const require = createRequire(import.meta.url);
  const patterns = require(require.resolve('path-to-regexp', { paths: [require.resolve('express-openapi-validator')] })) as {
    pathToRegexp: PathToRegexp;
  };
  const compile = patterns.pathToRegexp;
  const compiled = new Map<string, ReturnType<PathToRegexp>>();
  patterns.pathToRegexp = (path, options) => {
    const key = `${JSON.stringify(options ?? {})} ${path}`;
    const known = compiled.get(key) ?? compile(path, options);
    compiled.set(key, known);
    return known;
  };
}
compilePatternsOnce();

type ValidatorOptions = Omit<Parameters<typeof OpenApiValidator.middleware>[0], 'apiSpec'>;

const FAMILY_DEPTH = 4;

function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** The literal segments a documented path starts with (at most four, none after a template). */
function familyOf(path: string): string {
  const literal: string[] = [];
  for (const segment of segments(path).slice(0, FAMILY_DEPTH)) {
    if (segment.includes('{')) break;
    literal.push(segment);
  }
  return literal.join('/');
}

/**
 * Request validation from the OpenAPI document, split into one validator per path family
 * (`/api/plugins/ai-ops/llm-models`, `/api/extras/secrets`, ...). express-openapi-validator finds
 * a request's operation by compiling the pattern of every documented path, on every request; with
 * families each request is matched against a handful of paths instead of all of them. Behaviour is
 * the same: a family holds every path a request under its prefix could match (a family nested in
 * one whose paths have parameters is merged into it; a path without any, such as `/api/`, matches
 * only itself), and requests outside every family meet the whole document (404, 405).
 */
function compileValidation(document: OpenApiDocument, options: ValidatorOptions): RequestHandler {
  const families = new Map<string, string[]>();
  for (const path of Object.keys(document.paths)) {
    const family = familyOf(path);
    families.set(family, [...(families.get(family) ?? []), path]);
  }
  const mayMatchDeeper = (family: string) => (families.get(family) ?? []).some((path) => path.includes('{'));
  for (const family of [...families.keys()]) {
    const outer = [...families.keys()].find((other) => other !== family && (family + '/').startsWith(other + '/') && mayMatchDeeper(other));
    if (outer) {
      families.set(outer, [...(families.get(outer) ?? []), ...(families.get(family) ?? [])]);
      families.delete(family);
    }
  }
  // Only the whole document is checked against the OpenAPI schema: the families are parts of it.
  const validator = (paths: string[], validateApiSpec: boolean) => {
    const apiSpec: OpenApiDocument = structuredClone({
      ...document,
      paths: Object.fromEntries(paths.map((path) => [path, document.paths[path]!])),
    });
    return Router().use(OpenApiValidator.middleware({ ...options, apiSpec, validateApiSpec }));
  };
  const whole = validator(Object.keys(document.paths), true);
  // A family's validator is built at its first request: each one compiles the OpenAPI schema anew
  // (about 60 ms of CPU), and a process often serves a few families only.
  const built = new Map<string, RequestHandler>();
  const familyValidator = (family: string, paths: string[]): RequestHandler => {
    const handler = built.get(family) ?? validator(paths, false);
    built.set(family, handler);
    return handler;
  };
  return (req, res, next) => {
    const parts = segments(req.path).slice(0, FAMILY_DEPTH);
    for (let depth = parts.length; depth >= 0; depth--) {
      const family = parts.slice(0, depth).join('/');
      const paths = families.get(family);
      if (paths) return familyValidator(family, paths)(req, res, next);
    }
    return whole(req, res, next);
  };
}

/** The `tokenAuth` scheme's check: true lets the request through, a throw refuses it. */
export type SecurityHandler = (req: Request) => Promise<boolean>;

const compiled = new WeakMap<OpenApiDocument, Map<SecurityHandler, Map<boolean, RequestHandler>>>();

/**
 * The API's validation of requests against `document` (and of responses, in tests): parameters
 * coerced, unknown query parameters refused, dates checked against the calendar, every error reported, the `tokenAuth` scheme checked
 * by `tokenAuth`. Compiled once per document, handler and process and shared by every app of the
 * process (a test process starts hundreds): the validators hold no state of an app, and the
 * security handler reads the serving app's tokens from the response.
 */
export function openApiValidation(
  document: OpenApiDocument,
  { validateResponses, tokenAuth }: { validateResponses: boolean; tokenAuth: SecurityHandler },
): RequestHandler {
  const byHandler = compiled.get(document) ?? new Map<SecurityHandler, Map<boolean, RequestHandler>>();
  compiled.set(document, byHandler);
  const byResponses = byHandler.get(tokenAuth) ?? new Map<boolean, RequestHandler>();
  byHandler.set(tokenAuth, byResponses);
  const known = byResponses.get(validateResponses);
  if (known) return known;
  const handler = compileValidation(document, {
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true, allErrors: true },
    // The validator's fast formats check the digits only: `2026-02-30` passed as a date.
    formats: { date: { type: 'string', validate: isCalendarDate }, 'date-time': { type: 'string', validate: isCalendarDateTime } },
    validateResponses,
    validateSecurity: { handlers: { tokenAuth } },
    ignoreUndocumented: false,
  });
  byResponses.set(validateResponses, handler);
  return handler;
}
