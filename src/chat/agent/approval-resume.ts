import type { ApprovalRequest } from '../chat.jobs.js';
import { PlanChangedError, type ApprovalDecision } from '../chat-tools.port.js';
import type { ToolCall } from '../providers/provider.port.js';
import { planRefusal } from '../../write-plans/write-plan.js';
import { notRunEntry, pushResults, type ToolCaller } from './tool-caller.js';
import type { AgentTurn, PausedAgent, ToolCallOutcome, TurnMessage } from './turn-types.js';

/** What the model sees of an approved call an earlier attempt started and never finished. */
export const INTERRUPTED_CALL =
  'error: this approved call was started by a worker that stopped before it answered, so whether it took effect is unknown; it was not run again. Check its result before asking to repeat it.';

/** The owner's decision on a proposed call and how long it took (unknown for a round stored before the time it was asked was kept). */
interface Decided {
  decision: ApprovalDecision;
  waitMs?: number;
}

/**
 * The paused step's waiting calls as decided (approved ones run now), then every result of the
 * step in call order, on `messages`. An approved call whose plan no longer holds is not made: the
 * step pauses again (the answer) with it planned anew, the others' outcomes kept.
 */
export async function finishPausedStep(
  caller: ToolCaller,
  turn: AgentTurn,
  { paused, decisions }: NonNullable<AgentTurn['resume']>,
  messages: TurnMessage[],
): Promise<PausedAgent | undefined> {
  const last = paused.messages.at(-1);
  const calls = last?.role === 'assistant' ? (last.tool_calls ?? []) : [];
  const decided = await Promise.all(
    paused.pending.map(async (request): Promise<[string, ToolCallOutcome]> => {
      const { id } = request;
      const call = calls.find((candidate) => candidate.id === id)!;
      const decision = (Object.hasOwn(decisions, id) ? decisions[id] : undefined) ?? {
        approved: false,
        decided_by: null,
        decided_at: new Date().toISOString(),
      };
      return [id, askedAgain(request, await decide(caller, turn, paused, call, request, decision))];
    }),
  );
  const replanned = paused.pending.flatMap((request) => {
    const again = decided.find(([id]) => id === request.id)![1].replanned;
    return again ? [{ ...request, plan: again.plan, replanned: again.reasons }] : [];
  });
  const outcomes = Object.fromEntries(decided.filter(([, outcome]) => !outcome.replanned));
  if (replanned.length > 0) return { ...paused, ran: { ...paused.ran, ...outcomes }, pending: replanned, askedAt: Date.now() };
  pushResults(messages, calls, { ...paused.ran, ...outcomes });
  return undefined;
}

/** One waiting call as its owner decided: the decision reported, then the call made if approved, declined otherwise. */
async function decide(
  caller: ToolCaller,
  turn: AgentTurn,
  paused: PausedAgent,
  call: ToolCall,
  request: ApprovalRequest,
  decision: ApprovalDecision,
): Promise<ToolCallOutcome> {
  const { step } = paused;
  const waitMs = approvalWait(paused, decision);
  await turn.report({
    type: 'approval_decided',
    step,
    id: call.id,
    name: call.name,
    approved: decision.approved,
    ...(decision.note ? { note: decision.note } : {}),
    decided_by: decision.decided_by,
  });
  if (decision.approved) return approvedCall(caller, turn, step, call, request, { decision, waitMs });
  const content = declinedResult(decision);
  await caller.notRun(turn, step, call, content, notRunEntry(call, request.server, 'declined', decision, request.plan), waitMs);
  return { ok: false, content, approval: decision };
}

/**
 * An approved call runs at most once over every attempt of the turn: a retried turn reuses its
 * outcome, and one an earlier attempt started but never finished is reported, not run again
 * (it may have changed something already).
 */
async function approvedCall(
  caller: ToolCaller,
  turn: AgentTurn,
  step: number,
  call: ToolCall,
  { server, server_ref: serverRef, plan }: ApprovalRequest,
  { decision, waitMs }: Decided,
): Promise<ToolCallOutcome> {
  const earlier = (await turn.approvedCalls?.start(call.id)) ?? null;
  if (earlier === null) {
    let outcome: ToolCallOutcome;
    try {
      outcome = await caller.call(
        call,
        turn,
        step,
        { approval: decision, ...(serverRef ? { reviewedServerRef: serverRef } : {}), ...(plan ? { plan } : {}) },
        waitMs,
      );
    } catch (error) {
      if (!(error instanceof PlanChangedError)) throw error;
      outcome = await planChanged(caller, turn, step, call, server, error, decision);
    }
    await turn.approvedCalls?.finish(call.id, outcome);
    return outcome;
  }
  // Planned again by an earlier attempt: it is asked again, as that attempt would have.
  if (earlier !== 'started' && earlier.replanned) return earlier;
  // A finished call was logged by the attempt that made it; an interrupted one never was, and may have changed something.
  if (earlier !== 'started') {
    await caller.settle(turn, step, call, earlier);
    return earlier;
  }
  await caller.notRun(turn, step, call, INTERRUPTED_CALL, notRunEntry(call, server, 'error', decision), waitMs);
  return { ok: false, content: INTERRUPTED_CALL, approval: decision };
}

/**
 * An approved call not made because its plan no longer held: asked again on the new plan, or, when
 * the call can no longer be made as asked (an object it names is gone), its errors to the model.
 */
async function planChanged(
  caller: ToolCaller,
  turn: AgentTurn,
  step: number,
  call: ToolCall,
  server: string,
  { plan, reasons }: PlanChangedError,
  decision: ApprovalDecision,
): Promise<ToolCallOutcome> {
  if (plan.errors.length === 0) return { ok: false, content: '', approval: decision, replanned: { plan, reasons } };
  const content = `error: not written: what it changes moved since it was approved (${reasons.join('; ')}). ${planRefusal(plan)}`;
  await caller.settle(turn, step, call, { ok: false, content }, notRunEntry(call, server, 'error', decision, plan));
  return { ok: false, content, approval: decision };
}

/** A call asked again after its plan moved: the model hears why along with how it ended. */
function askedAgain({ replanned }: ApprovalRequest, outcome: ToolCallOutcome): ToolCallOutcome {
  if (!replanned || outcome.replanned) return outcome;
  return { ...outcome, content: `(asked again because ${replanned.join('; ')}) ${outcome.content}` };
}

function approvalWait({ askedAt }: PausedAgent, decision: ApprovalDecision): number | undefined {
  return askedAt === undefined ? undefined : Math.max(0, Date.parse(decision.decided_at) - askedAt);
}

/** What the model sees of a declined call. */
function declinedResult(decision: ApprovalDecision): string {
  if (decision.decided_by === null) return `declined: ${decision.note ?? 'no decision was made in time'}`;
  return decision.note ? `declined by the user: ${decision.note}` : 'declined by the user';
}
