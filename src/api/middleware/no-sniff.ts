import type { RequestHandler } from 'express';

/** Every answer is read as the type it declares: a JSON answer echoing a client's text never runs as a page. */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.set('X-Content-Type-Options', 'nosniff');
  next();
};
