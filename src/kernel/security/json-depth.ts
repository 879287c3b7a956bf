import { ValidationError } from '../errors.js';

/** How deep a request's JSON may nest (objects and arrays): far beyond any real body, well within every parser's stack. */
export const MAX_JSON_DEPTH = 400;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * Whether JSON text nests deeper than `max`, found in one pass over its bytes before it is parsed
 * (UTF-8 continuation bytes never equal these ASCII ones). Malformed text is left to the parser.
 */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (OPENERS.has(byte)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(byte)) depth--;
  }
  return false;
}

/** A JSON body parser's `verify` hook: a body nesting deeper than MAX_JSON_DEPTH is a validation error, never parsed. */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Uint8Array): void {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH))
    throw ValidationError.field('non_field_errors', `JSON nesting is deeper than ${MAX_JSON_DEPTH} levels.`);
}
