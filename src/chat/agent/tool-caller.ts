import type { AuditApproval } from '../audit/audit-log.port.js';
import type { AuditedCall, ToolCallAudit } from '../audit/tool-call-audit.js';
import {
  PlanChangedError,
  unavailableTool,
  type ApprovalDecision,
  type ChatTools,
  type ToolCallFacts,
  type ToolCallReview,
  type ToolContext,
} from '../chat-tools.port.js';
import { UnavailableError } from '../../kernel/errors.js';
import type { ConcurrencyLimiter } from '../providers/concurrency-limiter.js';
import type { ImagePart, ToolCall } from '../providers/provider.port.js';
import type { WritePlan } from '../../write-plans/write-plan.js';
import { truncateWithMarker } from './truncate.js';
import { toolCallHooks } from './tool-call-hooks.js';
import { ToolDeadline } from './tool-deadline.js';
import { inToolSpan, pastToolSpan } from './turn-spans.js';
import type { AgentTurn, ToolCallOutcome, TurnMessage } from './turn-types.js';

/** Tool results in the event stream are cut to this many characters (the model gets its whole budget). */
const EVENT_CONTENT_LIMIT = 2_000;

export interface ToolCallerOptions {
  tools: ChatTools;
  /** Caps concurrent calls per LLM model. */
  limiter: ConcurrencyLimiter;
  /** Limit of one tool call, started again whenever it reports progress. */
  toolTimeoutMs: number;
  /** However often it reports progress, a tool call ends after this (MCP_TOOL_MAX_S); `toolTimeoutMs` when absent. */
  toolMaxMs?: number;
  /** Characters of one tool result the model sees; the rest is cut with a marker. */
  resultChars: number;
  /** Where every tool call is recorded as it finishes (turns with an `audit` subject). */
  audit?: ToolCallAudit;
}

/** What a call is made on: its owner's decision, the server and plan it was reviewed with. */
type Reviewed = Pick<ToolContext, 'approval' | 'reviewedServerRef' | 'plan'>;

/**
 * Makes a turn's tool calls and settles each: its result to the user, its entry in the audit log
 * and its span, whether it ran or not. A failing or slow tool becomes an error result the model can
 * react to; a lost dependency, a plan that moved and the turn's own end are thrown.
 */
export class ToolCaller {
  constructor(private readonly options: ToolCallerOptions) {}

  /** The calls that need no decision, each on what it was reviewed as: a tool unknown then is not called, even if one by its name appeared since. */
  async callReviewed(
    calls: Array<{ call: ToolCall; review: ToolCallReview }>,
    turn: AgentTurn,
    step: number,
  ): Promise<Record<string, ToolCallOutcome>> {
    const outcomes = await Promise.all(
      calls.map(async ({ call, review }) => {
        if (review.server === '') return [call.id, await this.unavailable(call, turn, step)] as const;
        if (review.refusal) return [call.id, await this.refused(call, review, turn, step)] as const;
        return [
          call.id,
          await this.call(call, turn, step, review.serverRef ? { reviewedServerRef: review.serverRef } : undefined),
        ] as const;
      }),
    );
    return Object.fromEntries(outcomes);
  }

  /** One call: its result (or error) as the text the model sees, reported as it finishes; `approvalWaitMs`, how long its owner took to approve it. */
  async call(call: ToolCall, turn: AgentTurn, step: number, reviewed?: Reviewed, approvalWaitMs?: number): Promise<ToolCallOutcome> {
    const started = performance.now();
    const facts: ToolCallFacts = {};
    const approval = reviewed?.approval;
    const plan = reviewed?.plan;
    const finished = (ok: boolean): AuditedCall => ({
      tool: call.name,
      arguments: call.arguments,
      server: facts.server ?? null,
      outcome: ok ? 'ok' : 'error',
      httpStatus: facts.httpStatus,
      ...(approval ? { approval: auditApproval(approval) } : {}),
      ...(plan ? { plan } : {}),
      durationMs: performance.now() - started,
    });
    const { ok, content, images } = await inToolSpan(
      call.name,
      () => this.outcome(call, turn, step, facts, reviewed),
      finished,
      approvalWaitMs,
    );
    const shown = truncateWithMarker(content, this.options.resultChars);
    await this.settle(turn, step, call, { ok, content: shown }, finished(ok));
    return { ok, content: shown, ...(images?.length ? { images } : {}), ...(approval ? { approval } : {}) };
  }

  /** A call's end made known: its result to the user (a `tool_result` event, cut) and its audit entry, when it has one to write. */
  async settle(
    turn: AgentTurn,
    step: number,
    call: ToolCall,
    { ok, content }: Pick<ToolCallOutcome, 'ok' | 'content'>,
    entry?: AuditedCall,
  ): Promise<void> {
    await Promise.all([
      turn.report({ type: 'tool_result', step, id: call.id, name: call.name, ok, content: content.slice(0, EVENT_CONTENT_LIMIT) }),
      entry && this.audit(turn, entry),
    ]);
  }

  /** A call that did not run (declined, refused, not offered, interrupted): settled as an error, and a span of no length in the turn's trace. */
  notRun(turn: AgentTurn, step: number, call: ToolCall, content: string, entry: AuditedCall, approvalWaitMs?: number): Promise<void> {
    pastToolSpan(entry, approvalWaitMs);
    return this.settle(turn, step, call, { ok: false, content }, entry);
  }

  /** A call of a tool that was not offered: the model hears so; nothing runs. */
  private async unavailable(call: ToolCall, turn: AgentTurn, step: number): Promise<ToolCallOutcome> {
    const content = `error: ${unavailableTool(call.name)}`;
    await this.notRun(turn, step, call, content, notRunEntry(call, null, 'error'));
    return { ok: false, content };
  }

  /** A call refused on review (its plan has errors): the model hears why; nothing runs and nobody is asked. */
  private async refused(
    call: ToolCall,
    { server, plan, refusal }: ToolCallReview,
    turn: AgentTurn,
    step: number,
  ): Promise<ToolCallOutcome> {
    const content = `error: ${refusal ?? ''}`;
    await this.notRun(turn, step, call, content, notRunEntry(call, server, 'error', undefined, plan));
    return { ok: false, content };
  }

  /** Records a finished (or declined) call in the audit log, for turns that say whose they are. */
  private async audit(turn: AgentTurn, call: AuditedCall): Promise<void> {
    if (turn.audit) await this.options.audit?.record(turn.audit, call);
  }

  private async outcome(
    call: ToolCall,
    turn: AgentTurn,
    step: number,
    facts: ToolCallFacts,
    reviewed?: Reviewed,
  ): Promise<{ ok: boolean; content: string; images?: ImagePart[] }> {
    const { toolTimeoutMs, toolMaxMs = toolTimeoutMs, limiter } = this.options;
    // Its signal aborting (the turn stopped, a limit reached) cancels the call at its server too.
    const deadline = new ToolDeadline(turn.signal, toolTimeoutMs, toolMaxMs);
    const { signal } = deadline;
    const observe = (learned: ToolCallFacts) => Object.assign(facts, learned);
    const serverHooks = toolCallHooks(turn, { step, call, deadline, facts }, { limiter, audit: (entry) => this.audit(turn, entry) });
    try {
      const context = { ...toolContext(turn, signal), observe, serverHooks, ...reviewed };
      const answer = await abortable(this.options.tools.call(call.name, call.arguments, context), signal);
      await serverHooks.drained();
      return typeof answer === 'string' ? { ok: true, content: answer } : { ok: true, content: answer.text, images: answer.images };
    } catch (error) {
      // A plan that no longer holds is the loop's to settle: the call is asked again.
      if (error instanceof UnavailableError || error instanceof PlanChangedError || turn.signal.aborted) throw error;
      const timedOut = deadline.timeoutMessage;
      if (timedOut) return { ok: false, content: timedOut };
      return { ok: false, content: `error: ${(error as Error).message}` };
    } finally {
      deadline.dispose();
    }
  }
}

/** The audit entry of a call that was not made. */
export function notRunEntry(
  call: ToolCall,
  server: string | null,
  outcome: 'error' | 'declined',
  decision?: ApprovalDecision,
  plan?: WritePlan,
): AuditedCall {
  return {
    tool: call.name,
    arguments: call.arguments,
    server,
    outcome,
    ...(decision ? { approval: auditApproval(decision) } : {}),
    ...(plan ? { plan } : {}),
    durationMs: 0,
  };
}

/** A decision as the audit log keeps it. */
function auditApproval(decision: ApprovalDecision): AuditApproval {
  return {
    decision: decision.approved ? 'approved' : 'declined',
    decided_by: decision.decided_by,
    decided_at: decision.decided_at,
    ...(decision.note ? { note: decision.note } : {}),
  };
}

/** The step's tool messages, in the order of its calls. */
export function pushResults(messages: TurnMessage[], calls: ToolCall[], outcomes: Record<string, ToolCallOutcome>): void {
  for (const call of calls) {
    const outcome = outcomes[call.id]!;
    messages.push({
      role: 'tool',
      tool_call_id: call.id,
      name: call.name,
      content: outcome.content,
      ...(outcome.images?.length ? { images: outcome.images } : {}),
      ...(outcome.approval ? { approval: outcome.approval } : {}),
    });
  }
}

export function toolContext(turn: AgentTurn, signal: AbortSignal): ToolContext {
  return {
    userId: turn.userId,
    signal,
    ...(turn.credential ? { credential: turn.credential } : {}),
    connectRequired: (notice) => turn.report({ type: 'connect_required', ...notice }),
  };
}

/** Settles with `work`, or rejects as soon as `signal` aborts (for tools that ignore their signal). */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
