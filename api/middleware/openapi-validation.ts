import { Router, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from '../openapi.js';

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
 * the same: a family holds every path a request under its prefix could match (families whose
 * prefixes nest are merged), and requests outside every family meet the whole document (404, 405).
 */
export function openApiValidation(document: OpenApiDocument, options: ValidatorOptions): RequestHandler {
  const families = new Map<string, string[]>();
  for (const path of Object.keys(document.paths)) {
    const family = familyOf(path);
    families.set(family, [...(families.get(family) ?? []), path]);
  }
  for (const family of [...families.keys()]) {
    const outer = [...families.keys()].find((other) => other !== family && (family + '/').startsWith(other + '/'));
    if (outer) {
      families.set(outer, [...(families.get(outer) ?? []), ...(families.get(family) ?? [])]);
      families.delete(family);
    }
  }
  // Only the whole document is checked against the OpenAPI schema: the families are parts of it.
  const validator = (paths: string[], validateApiSpec: boolean) => {
    const apiSpec: OpenApiDocument = structuredClone({ ...document, paths: Object.fromEntries(paths.map((path) => [path, document.paths[path]!])) });
    return Router().use(OpenApiValidator.middleware({ ...options, apiSpec, validateApiSpec }));
  };
  const whole = validator(Object.keys(document.paths), true);
  const byFamily = new Map([...families].map(([family, paths]) => [family, validator(paths, false)]));
  return (req, res, next) => {
    const parts = segments(req.path).slice(0, FAMILY_DEPTH);
    for (let depth = parts.length; depth >= 0; depth--) {
      const family = byFamily.get(parts.slice(0, depth).join('/'));
      if (family) return family(req, res, next);
    }
    return whole(req, res, next);
  };
}
