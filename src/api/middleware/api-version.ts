import type { RequestHandler } from 'express';
import { NotAcceptableError } from '../../kernel/errors.js';

/** The API's paths (the others are the web pages, /status and /metrics). */
const API_PATHS = /^\/(api|plugins\/ai-ops\/api)\//;

/** The versions the media ranges of an `Accept` header ask for: `application/json; version=2.0`. */
function askedVersions(accept: string | undefined): string[] {
  return (accept ?? '').split(',').flatMap((range) => {
    const version = /;\s*version\s*=\s*"?([^";\s]+)"?/i.exec(range)?.[1];
    return version === undefined ? [] : [version];
  });
}

/**
 * Nautobot's API versioning: every answer of the API names its version in `API-Version`, and a
 * client asking for another one (`Accept: application/json; version=X`) is answered 406.
 */
export function apiVersion(version: string): RequestHandler {
  return (req, res, next) => {
    if (!API_PATHS.test(req.path)) return next();
    res.setHeader('API-Version', version);
    const other = askedVersions(req.get('accept')).find((asked) => asked !== version);
    if (other === undefined) return next();
    next(new NotAcceptableError(`Invalid version in "Accept" header: ${other}. This API speaks version ${version}.`));
  };
}
