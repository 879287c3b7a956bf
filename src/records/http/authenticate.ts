import type { Request } from 'express';
import { isRequirement, meetsRequirement, type Principal } from '../auth/permissions.js';
import type { TokenService } from '../auth/token.service.js';
import { AuthenticationError, PermissionDeniedError } from '../../kernel/errors.js';
import { operationPermission } from '../../api/openapi.js';
import { controlPlaneRefusal } from '../../api/control-plane.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `principal` has what `operation` requires (its `x-aiops-permission`, if it names one). */
function meetsOperation(principal: Principal, operation: object | undefined): boolean {
  const permission = operationPermission(operation);
  return !permission || (isRequirement(permission) && meetsRequirement(principal, permission));
}

/** Whether `principal` may make the write `operation`: a token that may write, with what the operation requires. */
export function mayWrite(principal: Principal, operation: object): boolean {
  return principal.writeEnabled && meetsOperation(principal, operation);
}

/** `Authorization: Token <key>` → principal; the operation's `x-aiops-permission` is then required. */
export async function authorize(tokens: TokenService, req: Request): Promise<Principal> {
  const header = req.get('authorization');
  if (!header) throw new AuthenticationError('Authentication credentials were not provided.');
  const match = /^Token\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new AuthenticationError('Invalid token header. Use "Authorization: Token <key>".');
  const principal = await tokens.authenticate(match[1]);
  if (principal.audience) throw new AuthenticationError(`This token is for ${principal.audience} only.`);
  if (!principal.writeEnabled && !SAFE_METHODS.has(req.method)) {
    throw new PermissionDeniedError('This token is read-only; it cannot change anything.');
  }
  // Judged on the path asked and on the route it matched: no spelling of a path reaches a control-plane handler.
  if (principal.delegated) {
    const refusal = controlPlaneRefusal(req.path) ?? (req.openapi ? controlPlaneRefusal(req.openapi.openApiRoute) : undefined);
    if (refusal) throw new PermissionDeniedError(`You do not have permission to perform this action: ${refusal}.`);
  }
  const permission = operationPermission(req.openapi?.schema);
  if (!meetsOperation(principal, req.openapi?.schema)) {
    throw new PermissionDeniedError(
      permission === 'superuser'
        ? 'You do not have permission to perform this action (needs a superuser token).'
        : `You do not have permission to perform this action (needs ${permission}).`,
    );
  }
  return principal;
}

/**
 * Security handler for the `tokenAuth` scheme of the OpenAPI document. The validator re-wraps
 * whatever a handler throws into its own HTTP error, so the original (domain) error is kept on
 * `res.locals.authFailure` for the error handler to map like any other. The tokens are those of
 * the app serving the request (`res.locals.tokens`): one handler serves every app of a process.
 */
export async function tokenAuth(req: Request): Promise<boolean> {
  try {
    req.res!.locals.principal = await authorize(req.res!.locals.tokens, req);
    return true;
  } catch (error) {
    req.res!.locals.authFailure = error;
    throw error;
  }
}
