import type { Principal } from '../auth/permissions.js';
import type { TokenService } from '../auth/token.service.js';

// What authentication puts on each response's locals, typed once for every route.
declare global {
  namespace Express {
    interface Locals {
      /** The token service of the app serving the request (the validators are shared by every app of a process). */
      tokens: TokenService;
      principal?: Principal;
      /** Why the security handler refused the request (see authenticate.ts). */
      authFailure?: unknown;
    }
  }
}

export {};
