import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { ValidationError } from '../../kernel/errors.js';

/**
 * Operations whose document says `requestBody.required` get a body or a 400. The OpenAPI validator
 * alone lets two cases through: a request with no body at all (no Content-Length, no chunks: what
 * `curl -X POST` sends), and a zero-byte JSON body, which the JSON parser turns into `{}`; both reached
 * the handlers as a body nobody sent. `noteEmpty` is the JSON parser's `verify` hook; `requireBody`
 * runs after the validator, which has found the request's operation.
 */
export function requiredBody(): { noteEmpty: (req: IncomingMessage, res: unknown, body: Buffer) => void; requireBody: RequestHandler } {
  const empty = new WeakSet<IncomingMessage>();
  return {
    noteEmpty: (req, _res, body) => {
      if (body.length === 0) empty.add(req);
    },
    requireBody: (req, _res, next) => {
      // The validator leaves `requestBody` null on operations without one.
      const declared: unknown = req.openapi?.schema.requestBody;
      const required = typeof declared === 'object' && declared !== null && 'required' in declared && declared.required === true;
      if (required && (req.body === undefined || empty.has(req))) {
        return next(ValidationError.field('non_field_errors', 'A JSON object body is required.'));
      }
      next();
    },
  };
}
