import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import type { Principal } from '../shared/auth/permissions.js';
import type { TokenService } from '../shared/auth/token.service.js';
import type { Logger } from '../shared/logging/logger.js';

// What our middleware puts on each request and response, typed once for every route.
declare global {
  namespace Express {
    interface Request {
      openapi?: OpenApiRequestMetadata;
    }
    interface Locals {
      requestId: string;
      logger: Logger;
      /** The token service of the app serving the request (the validators are shared by every app of a process). */
      tokens: TokenService;
      principal?: Principal;
      /** Why the security handler refused the request (see api/middleware/authenticate.ts). */
      authFailure?: unknown;
    }
  }
}

export {};
