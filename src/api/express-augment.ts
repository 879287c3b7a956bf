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
      logger: Logger;
    }
  }
}

export {};
