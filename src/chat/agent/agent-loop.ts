import { setMaxListeners } from 'node:events';
import type { ApprovalRequest, ChatProgress } from '../chat.jobs.js';
import type { AuditApproval } from '../audit/audit-log.port.js';
import type { AuditedCall, AuditSubject, ToolCallAudit } from '../audit/tool-call-audit.js';
import {
  PlanChangedError,
  unavailableTool,
  type ApprovalDecision,
  type ChatTools,
  type ToolCallFacts,
  type ToolCallReview,
  type ToolContext,
  type TurnCredential,
} from '../chat-tools.port.js';
import { linkedSignal } from '../../kernel/linked-signal.js';
import { UnavailableError } from '../../kernel/errors.js';
import type { ConcurrencyLimiter } from '../providers/concurrency-limiter.js';
import type { ChatMessage, ChatProvider, ImagePart, ProviderReply, TextSink, ToolCall } from '../providers/provider.port.js';
import type { LlmModelRecord } from '../../records/llm-model.js';
import { planErrorText, planRefusal, type WritePlan } from '../../write-plans/write-plan.js';
import type { TokenCount } from '../usage/token-usage.port.js';
import { truncateWithMarker } from './truncate.js';
import { toolCallHooks } from './tool-call-hooks.js';
import { ToolDeadline } from './tool-deadline.js';
import type { McpElicitation, McpElicitationAnswer } from '../../mcp-client/mcp-connector.port.js';
import { inSpan, pastSpan, type Attributes, type Span } from '../../kernel/tracing/tracing.js';

/** Tool results in the event stream are cut to this many characters (the model gets its whole budget). */
const EVENT_CONTENT_LIMIT = 2_000;
/**
 * Tool calls of one step that run; a model asking for more gets these first (its step is kept as
 * if it had asked for them alone). Every call is an event, an audit entry and a request.
 */
export const MAX_CALLS_PER_STEP = 16;
/** Listeners on a turn's signal besides its calls': the model call's, and a few to spare. */
const LISTENERS_BESIDES_CALLS = 4;

export interface AgentLoopOptions {
  tools: ChatTools;
  /** Caps concurrent calls per LLM model. */
  limiter: ConcurrencyLimiter;
  /** Model calls per turn (AGENT_MAX_STEPS); the last one is offered no tools, so it must answer. */
  maxSteps: number;
  /** Limit of one tool call, started again whenever it reports progress. */
  toolTimeoutMs: number;
  /** However often it reports progress, a tool call ends after this (MCP_TOOL_MAX_S); `toolTimeoutMs` when absent. */
  toolMaxMs?: number;
  /** Characters of one tool result the model sees; the rest is cut with a marker. */
  resultChars: number;
  /** Characters of one model answer kept (and stored); the rest is cut with a marker. */
  answerChars: number;
  /** Where every tool call is recorded as it finishes (turns with an `audit` subject). */
  audit?: ToolCallAudit;
}

/** How one tool call ended, as the model sees it; `approval` is the owner's decision when it needed one. */
export interface ToolCallOutcome {
  ok: boolean;
  content: string;
  /** Images the tool returned, for a model that takes them (`content` describes them too); not kept in the session. */
  images?: ImagePart[];
  approval?: ApprovalDecision;
  /** Not made: its approved plan no longer held, so it is planned again (this plan) and asked again. */
  replanned?: { plan: WritePlan; reasons: string[] };
}

/** A tool message with the owner's decision on its call, when the call needed one (stored with the session). */
export type TurnMessage = ChatMessage | (Extract<ChatMessage, { role: 'tool' }> & { approval: ApprovalDecision });

/** A turn stopped to wait for decisions: everything needed to go on from there (plain JSON, stored while it waits). */
export interface PausedAgent {
  /** The step whose calls wait. */
  step: number;
  /** The turn's messages so far; the last is the assistant's step with its tool calls. */
  messages: TurnMessage[];
  usage: TokenCount;
  /** The step's calls that needed no decision and ran already, by call id. */
  ran: Record<string, ToolCallOutcome>;
  pending: ApprovalRequest[];
  /** Errors of this turn's refused plans by operation, so that a corrected call shows what was fixed. */
  refused?: Record<string, string[]>;
  /** When its calls were put to their owner (ms since the epoch; absent in rounds stored before it was kept): how long a decision took. */
  askedAt?: number;
}

export interface AgentTurn {
  provider: ChatProvider;
  model: Pick<LlmModelRecord, 'id' | 'name' | 'provider' | 'temperature' | 'model_config'>;
  /** System prompt and history. */
  prompt: ChatMessage[];
  message: string;
  userId: string;
  /** The asking user's rights, for tools that act on their behalf. */
  credential?: TurnCredential;
  /** The turn's deadline (AGENT_TIMEOUT_S) and cancellation. */
  signal: AbortSignal;
  report(progress: ChatProgress): Promise<void>;
  /** Where each step's text goes as the model writes it (streaming); the reply comes whole without it. */
  text?: (step: number) => TextSink;
  /** Goes on from a pause with the owner's decisions (every pending call has one). */
  resume?: { paused: PausedAgent; decisions: Record<string, ApprovalDecision> };
  /** What earlier attempts of this turn did with its approved calls, so that none runs twice. */
  approvedCalls?: ApprovedCallLog;
  /** Whose turn this is, for the audit log of its tool calls. */
  audit?: AuditSubject;
  /**
   * Records each model call's tokens as the provider reported them; answers why the turn must stop
   * once the step's calls have run (its user's token budget is spent), if it must.
   */
  meter?(tokens: TokenCount): Promise<string | undefined>;
  /** Refuses (throws) when the turn's user has spent their budget on its model: a server's sampling request is not served then. */
  admit?(): Promise<void>;
  /** Puts an MCP server's question to the turn's user and waits for the answer (cancel when none comes in time); none: every question is cancelled. */
  elicit?(
    question: McpElicitation,
    call: ElicitingCall,
    signal: AbortSignal,
  ): Promise<{ answer: McpElicitationAnswer; answeredBy: string | null }>;
}

/** The tool call a server's question came with. */
export interface ElicitingCall {
  step: number;
  id: string;
  name: string;
  server: string;
}

/** What an earlier attempt of a turn left of an approved call: nothing, `started` (it never finished), or its outcome. */
export type EarlierAttempt = null | 'started' | ToolCallOutcome;

/**
 * The approved calls of a resumed step across attempts of the turn: a worker may stop in the middle
 * of one, and the job runs again elsewhere.
 */
export interface ApprovedCallLog {
  /** Marks the call started and answers what an earlier attempt left of it. */
  start(callId: string): Promise<EarlierAttempt>;
  finish(callId: string, outcome: ToolCallOutcome): Promise<void>;
}

/** What the model sees of an approved call an earlier attempt started and never finished. */
export const INTERRUPTED_CALL =
  'error: this approved call was started by a worker that stopped before it answered, so whether it took effect is unknown; it was not run again. Check its result before asking to repeat it.';

export type AgentOutcome =
  | {
      kind: 'answered';
      /** This turn's messages: the user's, each assistant step with its tool calls, each tool result, the answer. */
      messages: TurnMessage[];
      reply: ProviderReply;
      usage: TokenCount;
    }
  | { kind: 'paused'; paused: PausedAgent };

/** What the model sees of a declined call. */
function declinedResult(decision: ApprovalDecision): string {
  if (decision.decided_by === null) return `declined: ${decision.note ?? 'no decision was made in time'}`;
  return decision.note ? `declined by the user: ${decision.note}` : 'declined by the user';
}

/**
 * The tool-calling loop of one chat turn: ask the model with the tools of every usable server,
 * run the calls it asks for (in parallel, each with its own time limit), give it the results, and
 * repeat until it answers in text or the step limit leaves it no tools. A failing or slow tool
 * becomes an error result the model can react to; only a lost dependency (Redis) or the turn's
 * own deadline fails the turn. A step with calls that may change something runs the others and
 * pauses (`paused`); the turn goes on from there with the owner's decisions (`resume`).
 */
export class AgentLoop {
  constructor(private readonly options: AgentLoopOptions) {}

  async run(turn: AgentTurn): Promise<AgentOutcome> {
    const { tools, limiter, maxSteps } = this.options;
    // A step's calls, and their reviews, listen to the turn's signal all at once: not a leak.
    setMaxListeners(MAX_CALLS_PER_STEP + LISTENERS_BESIDES_CALLS, turn.signal);
    const definitions = maxSteps > 1 ? await tools.list(toolContext(turn, turn.signal)) : [];
    const { resume } = turn;
    const messages: TurnMessage[] = resume ? [...resume.paused.messages] : [{ role: 'user', content: turn.message }];
    const usage = resume ? { ...resume.paused.usage } : { input_tokens: 0, output_tokens: 0 };
    const refused: Record<string, string[]> = { ...resume?.paused.refused };
    if (resume) {
      const again = await this.finishPausedStep(resume.paused, resume.decisions, turn, messages);
      if (again) return { kind: 'paused', paused: again };
    }
    for (let step = resume ? resume.paused.step + 1 : 1; ; step++) {
      const offered = step < maxSteps ? definitions : [];
      // Slots are the model's own: a slow or stuck model holds up its own chats, not every model of its kind.
      // The span says which model, how many tokens and how soon the first came, never what was said.
      const modelCall = { 'gen_ai.request.model': turn.model.name, 'gen_ai.provider.name': turn.model.provider, 'aiops.step': step };
      const reply = await inSpan('chat model', { attributes: modelCall }, async (span) => {
        const answer = await limiter.run(turn.model.id, async () => {
          const sink = turn.text && capped(turn.text(step), this.options.answerChars);
          // A signal of the call's own, let go after it: the SDKs leave a listener on the signal they
          // are given, and the turn's would gather one per model call.
          const modelSignal = linkedSignal([turn.signal]);
          try {
            return await turn.provider.chat({
              messages: [...turn.prompt, ...messages],
              tools: offered,
              temperature: turn.model.temperature,
              options: turn.model.model_config,
              signal: modelSignal.signal,
              ...(sink ? { stream: span.isRecording() ? timedFirstChunk(sink, span) : sink } : {}),
            });
          } finally {
            modelSignal.dispose();
          }
        });
        if (answer.usage)
          span.setAttributes({
            'gen_ai.usage.input_tokens': answer.usage.input_tokens,
            'gen_ai.usage.output_tokens': answer.usage.output_tokens,
          });
        span.setAttribute('aiops.tool_calls', answer.toolCalls.length);
        return answer;
      });
      usage.input_tokens += reply.usage?.input_tokens ?? 0;
      usage.output_tokens += reply.usage?.output_tokens ?? 0;
      const stop = reply.usage && turn.meter ? await turn.meter(reply.usage) : undefined;
      const content = truncateWithMarker(reply.content, this.options.answerChars);
      if (reply.toolCalls.length === 0 || offered.length === 0) {
        messages.push({ role: 'assistant', content });
        return { kind: 'answered', messages: withoutImages(messages), reply: { ...reply, content }, usage };
      }
      const calls = uniqueCallIds(reply.toolCalls.slice(0, MAX_CALLS_PER_STEP), messages, step);
      messages.push({ role: 'assistant', content, tool_calls: calls });
      for (const call of calls) await turn.report({ type: 'tool_call', step, id: call.id, name: call.name, arguments: call.arguments });
      const reviews = await Promise.all(calls.map((call) => tools.review(call.name, call.arguments, toolContext(turn, turn.signal))));
      for (const { plan, refusal } of reviews) {
        if (refusal && plan)
          refused[plan.operation] = [...new Set([...(refused[plan.operation] ?? []), ...plan.errors.map(planErrorText)])];
      }
      const pending = calls.flatMap((call, index): ApprovalRequest[] => {
        const review = reviews[index]!;
        if (!review.needsApproval || review.refusal) return [];
        const fixed = review.plan ? (refused[review.plan.operation] ?? []) : [];
        return [
          {
            id: call.id,
            tool: call.name,
            server: review.server,
            ...(review.serverRef ? { server_ref: review.serverRef } : {}),
            arguments: call.arguments,
            ...(review.plan ? { plan: review.plan } : {}),
            ...(fixed.length ? { fixed } : {}),
          },
        ];
      });
      const ran = await this.callTools(
        calls.flatMap((call, index) => {
          const review = reviews[index]!;
          return review.needsApproval && !review.refusal ? [] : [{ call, review }];
        }),
        turn,
        step,
      );
      if (pending.length > 0) return { kind: 'paused', paused: { step, messages, usage, ran, pending, refused, askedAt: Date.now() } };
      pushResults(messages, calls, ran);
      if (stop !== undefined) {
        messages.push({ role: 'assistant', content: stop });
        return { kind: 'answered', messages: withoutImages(messages), reply: { content: stop, toolCalls: [] }, usage };
      }
    }
  }

  /**
   * The paused step's waiting calls as decided (approved ones run now), then every result of the
   * step in call order. An approved call whose plan no longer holds is not made: the step pauses
   * again (the answer) with it planned anew, the others' outcomes kept.
   */
  private async finishPausedStep(
    paused: PausedAgent,
    decisions: Record<string, ApprovalDecision>,
    turn: AgentTurn,
    messages: TurnMessage[],
  ): Promise<PausedAgent | undefined> {
    const last = paused.messages.at(-1);
    const calls = last?.role === 'assistant' ? (last.tool_calls ?? []) : [];
    const decided = await Promise.all(
      paused.pending.map(async (request): Promise<[string, ToolCallOutcome]> => {
        const { id, server, plan } = request;
        const call = calls.find((candidate) => candidate.id === id)!;
        const decision = (Object.hasOwn(decisions, id) ? decisions[id] : undefined) ?? {
          approved: false,
          decided_by: null,
          decided_at: new Date().toISOString(),
        };
        const waitMs = approvalWait(paused, decision);
        await turn.report({
          type: 'approval_decided',
          step: paused.step,
          id,
          name: call.name,
          approved: decision.approved,
          ...(decision.note ? { note: decision.note } : {}),
          decided_by: decision.decided_by,
        });
        if (decision.approved) {
          return [id, askedAgain(request, await this.approvedCall(call, request, turn, paused.step, { decision, waitMs }))];
        }
        const content = declinedResult(decision);
        await Promise.all([
          turn.report({ type: 'tool_result', step: paused.step, id, name: call.name, ok: false, content }),
          this.notRun(
            turn,
            {
              tool: call.name,
              arguments: call.arguments,
              server,
              outcome: 'declined',
              approval: auditApproval(decision),
              ...(plan ? { plan } : {}),
              durationMs: 0,
            },
            waitMs,
          ),
        ]);
        return [id, askedAgain(request, { ok: false, content, approval: decision })];
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

  /**
   * An approved call runs at most once over every attempt of the turn: a retried turn reuses its
   * outcome, and one an earlier attempt started but never finished is reported, not run again
   * (it may have changed something already).
   */
  private async approvedCall(
    call: ToolCall,
    { server, server_ref: serverRef, plan }: ApprovalRequest,
    turn: AgentTurn,
    step: number,
    decided: Decided,
  ): Promise<ToolCallOutcome> {
    const { decision, waitMs } = decided;
    const earlier = (await turn.approvedCalls?.start(call.id)) ?? null;
    if (earlier === null) {
      let outcome: ToolCallOutcome;
      try {
        outcome = await this.callTool(
          call,
          turn,
          step,
          { approval: decision, ...(serverRef ? { reviewedServerRef: serverRef } : {}), ...(plan ? { plan } : {}) },
          waitMs,
        );
      } catch (error) {
        if (!(error instanceof PlanChangedError)) throw error;
        outcome = await this.planChanged(call, server, error, turn, step, decision);
      }
      await turn.approvedCalls?.finish(call.id, outcome);
      return outcome;
    }
    // Planned again by an earlier attempt: it is asked again, as that attempt would have.
    if (earlier !== 'started' && earlier.replanned) return earlier;
    const outcome = earlier === 'started' ? { ok: false, content: INTERRUPTED_CALL, approval: decision } : earlier;
    await Promise.all([
      turn.report({
        type: 'tool_result',
        step,
        id: call.id,
        name: call.name,
        ok: outcome.ok,
        content: outcome.content.slice(0, EVENT_CONTENT_LIMIT),
      }),
      // A finished call was logged by the attempt that made it; an interrupted one never was, and may have changed something.
      earlier === 'started'
        ? this.notRun(
            turn,
            { tool: call.name, arguments: call.arguments, server, outcome: 'error', approval: auditApproval(decision), durationMs: 0 },
            waitMs,
          )
        : undefined,
    ]);
    return outcome;
  }

  /**
   * An approved call not made because its plan no longer held: asked again on the new plan, or, when
   * the call can no longer be made as asked (an object it names is gone), its errors to the model.
   */
  private async planChanged(
    call: ToolCall,
    server: string,
    { plan, reasons }: PlanChangedError,
    turn: AgentTurn,
    step: number,
    decision: ApprovalDecision,
  ): Promise<ToolCallOutcome> {
    if (plan.errors.length === 0) return { ok: false, content: '', approval: decision, replanned: { plan, reasons } };
    const content = `error: not written: what it changes moved since it was approved (${reasons.join('; ')}). ${planRefusal(plan)}`;
    await Promise.all([
      turn.report({ type: 'tool_result', step, id: call.id, name: call.name, ok: false, content: content.slice(0, EVENT_CONTENT_LIMIT) }),
      this.audit(turn, {
        tool: call.name,
        arguments: call.arguments,
        server,
        outcome: 'error',
        approval: auditApproval(decision),
        plan,
        durationMs: 0,
      }),
    ]);
    return { ok: false, content, approval: decision };
  }

  /** The calls that need no decision, each on what it was reviewed as: a tool unknown then is not called, even if one by its name appeared since. */
  private async callTools(
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
          await this.callTool(call, turn, step, review.serverRef ? { reviewedServerRef: review.serverRef } : undefined),
        ] as const;
      }),
    );
    return Object.fromEntries(outcomes);
  }

  /** A call of a tool that was not offered: the model hears so; nothing runs. */
  private async unavailable(call: ToolCall, turn: AgentTurn, step: number): Promise<ToolCallOutcome> {
    const content = `error: ${unavailableTool(call.name)}`;
    await Promise.all([
      turn.report({ type: 'tool_result', step, id: call.id, name: call.name, ok: false, content }),
      this.notRun(turn, { tool: call.name, arguments: call.arguments, server: null, outcome: 'error', durationMs: 0 }),
    ]);
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
    await Promise.all([
      turn.report({ type: 'tool_result', step, id: call.id, name: call.name, ok: false, content: content.slice(0, EVENT_CONTENT_LIMIT) }),
      this.notRun(turn, { tool: call.name, arguments: call.arguments, server, outcome: 'error', ...(plan ? { plan } : {}), durationMs: 0 }),
    ]);
    return { ok: false, content };
  }

  /** One call: its result (or error) as the text the model sees, reported as it finishes; `approvalWaitMs`, how long its owner took to approve it. */
  private async callTool(
    call: ToolCall,
    turn: AgentTurn,
    step: number,
    reviewed?: Pick<ToolContext, 'approval' | 'reviewedServerRef' | 'plan'>,
    approvalWaitMs?: number,
  ): Promise<ToolCallOutcome> {
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
    const { ok, content, images } = await inSpan('chat tool', { attributes: { 'gen_ai.tool.name': call.name } }, async (span) => {
      const outcome = await this.outcome(call, turn, step, facts, reviewed);
      if (span.isRecording()) span.setAttributes(toolCallAttributes(finished(outcome.ok), approvalWaitMs));
      return outcome;
    });
    const shown = truncateWithMarker(content, this.options.resultChars);
    await Promise.all([
      turn.report({ type: 'tool_result', step, id: call.id, name: call.name, ok, content: shown.slice(0, EVENT_CONTENT_LIMIT) }),
      this.audit(turn, finished(ok)),
    ]);
    return { ok, content: shown, ...(images?.length ? { images } : {}), ...(approval ? { approval } : {}) };
  }

  /** Records a finished (or declined) call in the audit log, for turns that say whose they are. */
  private async audit(turn: AgentTurn, call: AuditedCall): Promise<void> {
    if (turn.audit) await this.options.audit?.record(turn.audit, call);
  }

  /** A call that did not run (declined, refused, not offered, interrupted): audited, and a span of no length in the turn's trace. */
  private notRun(turn: AgentTurn, call: AuditedCall, approvalWaitMs?: number): Promise<void> {
    pastSpan('chat tool', Date.now(), toolCallAttributes(call, approvalWaitMs));
    return this.audit(turn, call);
  }

  private async outcome(
    call: ToolCall,
    turn: AgentTurn,
    step: number,
    facts: ToolCallFacts,
    reviewed?: Pick<ToolContext, 'approval' | 'reviewedServerRef' | 'plan'>,
  ): Promise<{ ok: boolean; content: string; images?: ImagePart[] }> {
    const { toolTimeoutMs, toolMaxMs = toolTimeoutMs, limiter, audit } = this.options;
    // Its signal aborting (the turn stopped, a limit reached) cancels the call at its server too.
    const deadline = new ToolDeadline(turn.signal, toolTimeoutMs, toolMaxMs);
    const { signal } = deadline;
    const observe = (learned: ToolCallFacts) => Object.assign(facts, learned);
    const serverHooks = toolCallHooks(turn, { step, call, deadline, facts }, { limiter, ...(audit ? { audit } : {}) });
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

/** A call asked again after its plan moved: the model hears why along with how it ended. */
function askedAgain({ replanned }: ApprovalRequest, outcome: ToolCallOutcome): ToolCallOutcome {
  if (!replanned || outcome.replanned) return outcome;
  return { ...outcome, content: `(asked again because ${replanned.join('; ')}) ${outcome.content}` };
}

/** The owner's decision on a proposed call and how long it took (unknown for a round stored before the time it was asked was kept). */
interface Decided {
  decision: ApprovalDecision;
  waitMs?: number;
}

function approvalWait({ askedAt }: PausedAgent, decision: ApprovalDecision): number | undefined {
  return askedAt === undefined ? undefined : Math.max(0, Date.parse(decision.decided_at) - askedAt);
}

/** What a tool call's span says: the tool, its server, how it ended, its owner's decision and wait; never its arguments or result. */
function toolCallAttributes(call: AuditedCall, approvalWaitMs: number | undefined): Attributes {
  return {
    'gen_ai.tool.name': call.tool,
    'aiops.tool.server': call.server ?? '',
    'aiops.tool.outcome': call.outcome,
    ...(call.httpStatus ? { 'http.response.status_code': call.httpStatus } : {}),
    ...(call.approval ? { 'aiops.tool.approval': call.approval.decision } : {}),
    ...(approvalWaitMs !== undefined ? { 'aiops.tool.approval_wait_ms': approvalWaitMs } : {}),
  };
}

/** The sink, noting on `span` how long the model took to send the first piece of its answer (seconds, from the call). */
function timedFirstChunk(sink: TextSink, span: Span): TextSink {
  const asked = performance.now();
  let first = true;
  return {
    text(delta) {
      if (first) {
        first = false;
        span.setAttribute('gen_ai.response.time_to_first_chunk', (performance.now() - asked) / 1_000);
      }
      sink.text(delta);
    },
    restart: () => sink.restart(),
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

/**
 * The step's calls with ids unique in the turn: results, approvals and decisions are matched by id,
 * and a model may leave ids out or repeat them (within a step or from an earlier one). A repeated
 * or empty id gets one of its own.
 */
function uniqueCallIds(calls: ToolCall[], messages: TurnMessage[], step: number): ToolCall[] {
  const seen = new Set(
    messages.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [])),
  );
  return calls.map((call, index) => {
    let id = call.id;
    for (let n = 0; id === '' || seen.has(id); n++) id = `${call.id || 'call'}_s${step}c${index}${n > 0 ? `_${n}` : ''}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** The turn's messages as the session keeps them: a tool's images were the turn's to see, their descriptions stay. */
function withoutImages(messages: TurnMessage[]): TurnMessage[] {
  return messages.map((message) => {
    if (message.role !== 'tool' || !message.images) return message;
    const { images: _images, ...kept } = message;
    return kept;
  });
}

/** The step's tool messages, in the order of its calls. */
function pushResults(messages: TurnMessage[], calls: ToolCall[], outcomes: Record<string, ToolCallOutcome>): void {
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

/** A text sink that passes on at most `limit` characters of a reply (the stored answer is cut there too). */
function capped(sink: TextSink, limit: number): TextSink {
  let passed = 0;
  return {
    text(delta) {
      const room = limit - passed;
      if (room <= 0) return;
      const part = delta.length > room ? delta.slice(0, room) : delta;
      passed += part.length;
      sink.text(part);
    },
    restart() {
      passed = 0;
      sink.restart();
    },
  };
}

function toolContext(turn: AgentTurn, signal: AbortSignal): ToolContext {
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
