import type { RequestHandler } from 'express';
import { ValidationError } from '../../kernel/errors.js';

/** The largest `limit` or `offset` a list takes, as the document declares it. */
const MAX_PAGE_NUMBER = 2_147_483_647;

/**
 * `limit` and `offset` as whole numbers within the document's bounds. The validator reads `1e400`
 * as Infinity and lets it through its own bounds; Redis and the page links then got Infinity.
 */
export const pageBounds: RequestHandler = (req, _res, next) => {
  for (const name of ['limit', 'offset'] as const) {
    const value: unknown = req.query[name];
    if (typeof value === 'number' && !(Number.isSafeInteger(value) && value <= MAX_PAGE_NUMBER)) {
      next(ValidationError.field(name, `Ensure this value is a whole number less than or equal to ${MAX_PAGE_NUMBER}.`));
      return;
    }
  }
  next();
};
