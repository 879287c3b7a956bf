import { createHash, randomUUID } from 'node:crypto';
import { PermissionDeniedError } from '../kernel/errors.js';
import type { SealedBox } from '../kernel/security/sealed-box.js';
import { HTTP_METHODS, type ApiRequest, type HttpMethod } from '../platform/platform.port.js';
import type { WritePlan } from '../write-plans/write-plan.js';

/**
 * Who confirmed a write: the host's user in a confirm token the tool server gave for the plan
 * (`confirm`), or the chat's approval of the same call (`chat-approval`), carried in the call's `_meta`.
 */
export type ConfirmationKind = 'confirm' | 'chat-approval';

/** The `_meta` key of a call that carries the chat's approval of it (a `chat-approval` token, issued when its user approved it). */
export const CHAT_APPROVAL_META = 'io.aiops/approval';

/** What a token says, sealed: nothing in it can be read or changed without the key. */
interface Confirmation {
  kind: ConfirmationKind;
  /** Single use: a used id is refused. */
  id: string;
  /** planDigest of the request and the objects as planned. */
  digest: string;
  /** The caller it was given to (see callerKey). */
  caller: string;
  /** Epoch milliseconds. */
  expires: number;
}

/**
 * The request a call of the platform tool server's request tool sends, from the call's arguments:
 * the tool builds it so, and what the chat digests for its approval is what the server re-plans.
 * None when the arguments name no request; arguments the tool validated always do.
 */
export function requestOfArguments(args: ApiRequest): ApiRequest;
export function requestOfArguments(args: Record<string, unknown>): ApiRequest | undefined;
export function requestOfArguments({ method, path, params, body }: { [Key in keyof ApiRequest]?: unknown }): ApiRequest | undefined {
  if (!HTTP_METHODS.includes(method as HttpMethod) || typeof path !== 'string') return undefined;
  const query = typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
  return { method: method as HttpMethod, path, ...(query ? { params: query } : {}), ...(body !== undefined ? { body } : {}) };
}

/** JSON with keys in order: equal values give equal text whatever order the platform answered them in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * A digest of the request (method, path, query, body) and of the objects it touches as they were
 * read for its plan (each one's id, last update and every field's value now and as planned): the
 * same request planned again gives the same digest unless something it touches moved.
 */
export function planDigest(request: ApiRequest, plan: WritePlan): string {
  const before = plan.objects.map(({ id, last_updated, effect, changes }) => ({
    id,
    last_updated,
    effect,
    changes: changes.map(({ field, current, planned }) => ({ field, current, planned })),
  }));
  const state = { method: request.method, path: request.path, params: request.params, body: request.body, before, count: plan.count };
  return createHash('sha256').update(canonical(state)).digest('base64url');
}

/** Why a token is refused; the write is not made. */
export class RefusedConfirmation extends PermissionDeniedError {}

/** Issues and opens confirm tokens, sealed with the service's key (see SealedBox). */
export class ConfirmTokens {
  constructor(
    private readonly box: SealedBox,
    private readonly now: () => number = Date.now,
  ) {}

  issue(kind: ConfirmationKind, digest: string, caller: string, ttlMs: number): { token: string; expires: Date } {
    const confirmation: Confirmation = { kind, id: randomUUID(), digest, caller, expires: this.now() + ttlMs };
    return { token: this.box.seal(JSON.stringify(confirmation)), expires: new Date(confirmation.expires) };
  }

  /** The token's id and digest when it is genuine, of `kind`, unexpired and `caller`'s; RefusedConfirmation saying why otherwise. */
  open(token: string, kind: ConfirmationKind, caller: string): { id: string; digest: string; expires: number } {
    const opened = this.box.open(token);
    let confirmation: Partial<Confirmation> | undefined;
    try {
      confirmation = opened === undefined ? undefined : (JSON.parse(opened) as Partial<Confirmation>);
    } catch {
      confirmation = undefined;
    }
    const what = kind === 'confirm' ? 'confirm_token' : "the chat's approval";
    if (!confirmation || confirmation.kind !== kind || typeof confirmation.id !== 'string' || typeof confirmation.digest !== 'string') {
      throw new RefusedConfirmation(`${what} is not one this server issued (forged, altered, or sealed with another key)`);
    }
    if (typeof confirmation.expires !== 'number' || confirmation.expires <= this.now()) {
      throw new RefusedConfirmation(`${what} has expired: call again without it for a new plan`);
    }
    if (confirmation.caller !== caller) throw new RefusedConfirmation(`${what} was given to another caller`);
    return { id: confirmation.id, digest: confirmation.digest, expires: confirmation.expires };
  }
}
