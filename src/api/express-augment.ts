import type { LinkOrigins } from './list-page.js';
import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import type { Logger } from '../kernel/logging/logger.js';

// What our middleware puts on each request and response, typed once for every route.
declare global {
  namespace Express {
    interface Request {
      openapi?: OpenApiRequestMetadata;
    }
    interface Locals {
      requestId: string;
      /** Where this app's links may point (see list-page.ts). */
      linkOrigins?: LinkOrigins;
      logger: Logger;
    }
  }
}

export {};
