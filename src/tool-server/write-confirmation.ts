import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditLog, AuditOutcome, HostDecision } from '../chat/audit/audit-log.port.js';
import type { Logger } from '../kernel/logging/logger.js';
import { redactJson, redactSecrets } from '../kernel/security/redact-secrets.js';
import type { ApiRequest, PlatformClient } from '../platform/platform.port.js';
import { planDrift, planErrorText, planText, type WritePlan } from '../write-plans/write-plan.js';
import type { WritePlanner } from '../write-plans/write-planner.js';
import {
  CHAT_APPROVAL_META,
  planDigest,
  RefusedConfirmation,
  type ConfirmationKind,
  type ConfirmTokens,
} from '../write-plans/confirm-tokens.js';
import type { HostState } from './host-state.port.js';
import { SERVER_NAME } from './server-name.js';
import { success } from './tools/tool-result.js';

/** TOOLSERVER_WRITE_CONFIRM. */
export type WriteConfirmMode = 'auto' | 'token' | 'none';

/** Who calls through which host: the same for every call of a connection. */
export interface HostConnection {
  /** The caller tokens are bound to: `operator` (stdio), `static` (MCP_HTTP_TOKEN), `user:<name>`. */
  caller: string;
  /** As the audit log names them. */
  user: string;
  /** Only a superuser's calls go unconfirmed under TOOLSERVER_WRITE_CONFIRM=none (over stdio: the operator). */
  superuser: boolean;
  /** What the host declared at initialize, read when a call needs it. */
  declared(): { client: string | null; elicitation: boolean; session: string | null };
}

/** One write of the request tool. */
export interface WriteCall {
  tool: string;
  request: ApiRequest;
  arguments: Record<string, unknown>;
  /** The request tool's `confirm_token` argument. */
  confirmToken?: string;
  /** The call's `_meta` (a chat approval travels there). */
  meta?: Record<string, unknown>;
  /** Puts a form to the host's user on this call's own stream (elicitation/create). */
  ask(params: ElicitRequestFormParams, timeoutMs: number): Promise<ElicitResult>;
}

/** Whether a write may be sent now, and how it was confirmed; or the answer the call gets instead. */
export type Clearance = { cleared: true; decision: HostDecision; plan: WritePlan | null } | { cleared: false; answer: CallToolResult };

export interface WriteConfirmationOptions {
  mode: WriteConfirmMode;
  planner: Pick<WritePlanner, 'plan'>;
  tokens: ConfirmTokens;
  state: Pick<HostState, 'claimToken'>;
  /** TOOLSERVER_CONFIRM_TTL_S: how long a token stays good and a question waits for its answer. */
  ttlMs: number;
  /** Where each write (and each declined one) is recorded; without Redis, the log. */
  audit?: Pick<AuditLog, 'append'>;
  logger: Logger;
  /** Values never written to the audit log or an answer. */
  secrets: string[];
  now?: () => Date;
}

/** Nothing was sent: the call's answer says why, with the plan when there is one. */
function refused(error: string, plan?: WritePlan): CallToolResult {
  const body = { status: 'error', error, details: plan ? { plan } : {} };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

const APPROVE_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Make this change', description: 'Yes sends the write as planned above', default: false },
  },
  required: ['approve'],
};

/**
 * Decides whether a write of the request tool is sent: every write is planned first (reads only)
 * and confirmed by the host's user, as TOOLSERVER_WRITE_CONFIRM says. A host that declared
 * elicitation is asked with the plan (`auto`); any other gets the plan and a confirm token, which
 * a second call carries. Either way the write is planned again just before it is sent, and refused
 * if anything it touches moved since the plan the user saw. A call the chat already approved
 * carries that approval, checked the same way.
 */
export class WriteConfirmation {
  private readonly now: () => Date;

  constructor(private readonly options: WriteConfirmationOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async clear(call: WriteCall, host: HostConnection, reader: Pick<PlatformClient, 'request'>): Promise<Clearance> {
    const { mode } = this.options;
    if (mode === 'none' && host.superuser) return { cleared: true, decision: 'none', plan: null };
    const approval = call.meta?.[CHAT_APPROVAL_META];
    if (typeof approval === 'string') return this.redeem('chat-approval', approval, call, host, reader);
    if (call.confirmToken !== undefined) return this.redeem('confirm', call.confirmToken, call, host, reader);
    const plan = await this.options.planner.plan(call.request, reader);
    if (plan.errors.length > 0) {
      return {
        cleared: false,
        answer: refused(`nothing was written: the write cannot be made as asked (${plan.errors.map(planErrorText).join('; ')})`, plan),
      };
    }
    // `none` for a caller who is not a superuser is `auto`.
    if (mode !== 'token' && host.declared().elicitation) return this.ask(plan, call, host, reader);
    const { token, expires } = this.options.tokens.issue('confirm', planDigest(call.request, plan), host.caller, this.options.ttlMs);
    return {
      cleared: false,
      answer: success({
        dry_run: true as const,
        plan,
        confirmation: 'token' as const,
        confirm_token: token,
        confirm_expires: expires.toISOString(),
        note: 'Nothing was written. Show this plan to the user; only if they approve it, call again with the same arguments and confirm_token (single use, until confirm_expires).',
      }),
    };
  }

  /** Records a write that was sent (or one its user declined) in the audit log, with how it was decided and by which host. */
  async record(
    call: WriteCall,
    host: HostConnection,
    decision: HostDecision,
    outcome: AuditOutcome,
    details: { plan: WritePlan | null; httpStatus?: number; durationMs: number },
  ): Promise<void> {
    const { client, session } = host.declared();
    const time = this.now().toISOString();
    const entry = {
      time,
      user: host.user,
      user_id: host.caller,
      session_id: session ?? '',
      job_id: '',
      server: SERVER_NAME,
      tool: call.tool,
      arguments: redactJson(call.arguments, this.options.secrets),
      outcome,
      http_status: details.httpStatus ?? null,
      approval:
        decision === 'none'
          ? null
          : { decision: outcome === 'declined' ? ('declined' as const) : ('approved' as const), decided_by: host.user, decided_at: time },
      plan: details.plan ? redactJson(details.plan, this.options.secrets) : null,
      duration_ms: Math.max(0, Math.round(details.durationMs)),
      host: { client, decision },
    };
    const { audit, logger } = this.options;
    logger.info('platform write through the tool server', { tool: call.tool, user: host.user, client, decision, outcome });
    await audit
      ?.append(entry)
      .catch((error: unknown) =>
        logger.error('the audit log did not take a tool-server write', { error: error instanceof Error ? error.message : String(error) }),
      );
  }

  /** Puts the plan to the host's user; on accept, plans again and sends only what they saw. */
  private async ask(plan: WritePlan, call: WriteCall, host: HostConnection, reader: Pick<PlatformClient, 'request'>): Promise<Clearance> {
    const started = Date.now();
    let answer: ElicitResult;
    try {
      answer = await call.ask(
        { mode: 'form', message: `Approve this change to the platform?\n\n${planText(plan)}`, requestedSchema: APPROVE_SCHEMA },
        this.options.ttlMs,
      );
    } catch (error) {
      const reason = redactSecrets(error instanceof Error ? error.message : String(error), this.options.secrets);
      return {
        cleared: false,
        answer: this.unconfirmed(plan, 'unanswered', `Nothing was written: the user was asked but no answer came (${reason}).`),
      };
    }
    if (answer.action !== 'accept' || answer.content?.approve !== true) {
      const action = answer.action === 'cancel' ? 'cancelled' : 'declined';
      await this.record(call, host, 'elicitation', 'declined', { plan, durationMs: Date.now() - started });
      return { cleared: false, answer: this.unconfirmed(plan, action, `Nothing was written: the user ${action} the change.`) };
    }
    const fresh = await this.options.planner.plan(call.request, reader);
    const moved = planDrift(plan, fresh);
    if (moved.length > 0) {
      return { cleared: false, answer: refused(`nothing was written: what the user approved changed since (${moved.join('; ')})`, fresh) };
    }
    return { cleared: true, decision: 'elicitation', plan };
  }

  /** A confirm token, or the chat's approval: genuine, the caller's, unexpired, unused, and for this write as it stands now. */
  private async redeem(
    kind: ConfirmationKind,
    token: string,
    call: WriteCall,
    host: HostConnection,
    reader: Pick<PlatformClient, 'request'>,
  ): Promise<Clearance> {
    let confirmed: { id: string; digest: string; expires: number };
    try {
      confirmed = this.options.tokens.open(token, kind, host.caller);
    } catch (error) {
      if (error instanceof RefusedConfirmation) return { cleared: false, answer: refused(`nothing was written: ${error.message}`) };
      throw error;
    }
    const plan = await this.options.planner.plan(call.request, reader);
    if (plan.errors.length > 0 || planDigest(call.request, plan) !== confirmed.digest) {
      return {
        cleared: false,
        answer: refused(
          'nothing was written: this write, or what it touches, is not as it was when confirmed (other arguments, or the objects changed since); call again without the token for the current plan',
          plan,
        ),
      };
    }
    if (!(await this.options.state.claimToken(confirmed.id, confirmed.expires - this.now().getTime()))) {
      return { cleared: false, answer: refused('nothing was written: this confirmation was used already (each is good for one write)') };
    }
    return { cleared: true, decision: kind === 'confirm' ? 'confirm_token' : 'chat_approval', plan };
  }

  private unconfirmed(plan: WritePlan, confirmation: 'declined' | 'cancelled' | 'unanswered', note: string): CallToolResult {
    return success({ dry_run: true as const, plan, confirmation, note });
  }
}
