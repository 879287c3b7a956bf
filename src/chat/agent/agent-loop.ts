import { setMaxListeners } from 'node:events';
import type { ApprovalRequest } from '../chat.jobs.js';
import { planErrorText } from '../../write-plans/write-plan.js';
import { linkedSignal } from '../../kernel/linked-signal.js';
import type { ToolCallReview } from '../chat-tools.port.js';
import type { ProviderReply, TextSink, ToolCall, ToolDefinition } from '../providers/provider.port.js';
import type { TokenCount } from '../usage/token-usage.port.js';
import { finishPausedStep } from './approval-resume.js';
import { pushResults, toolContext, ToolCaller, type ToolCallerOptions } from './tool-caller.js';
import { truncateWithMarker } from './truncate.js';
import { inModelSpan } from './turn-spans.js';
import type { AgentOutcome, AgentTurn, ToolCallOutcome, TurnMessage } from './turn-types.js';

/**
 * Tool calls of one step that run; a model asking for more gets these first (its step is kept as
 * if it had asked for them alone). Every call is an event, an audit entry and a request.
 */
export const MAX_CALLS_PER_STEP = 16;
/** Listeners on a turn's signal besides its calls': the model call's, and a few to spare. */
const LISTENERS_BESIDES_CALLS = 4;

export interface AgentLoopOptions extends ToolCallerOptions {
  /** Model calls per turn (AGENT_MAX_STEPS); the last one is offered no tools, so it must answer. */
  maxSteps: number;
  /** Characters of one model answer kept (and stored); the rest is cut with a marker. */
  answerChars: number;
}

/** What a turn has gathered so far, from its start or from the step it paused at. */
interface TurnSoFar {
  messages: TurnMessage[];
  usage: TokenCount;
  /** Errors of this turn's refused plans by operation, so that a corrected call shows what was fixed. */
  refused: Record<string, string[]>;
}

/**
 * The tool-calling loop of one chat turn: ask the model with the tools of every usable server,
 * run the calls it asks for (in parallel, each with its own time limit), give it the results, and
 * repeat until it answers in text or the step limit leaves it no tools. A failing or slow tool
 * becomes an error result the model can react to; only a lost dependency (Redis) or the turn's
 * own deadline fails the turn. A step with calls that may change something runs the others and
 * pauses (`paused`); the turn goes on from there with the owner's decisions (`resume`,
 * `approval-resume.ts`).
 */
export class AgentLoop {
  private readonly caller: ToolCaller;

  constructor(private readonly options: AgentLoopOptions) {
    this.caller = new ToolCaller(options);
  }

  async run(turn: AgentTurn): Promise<AgentOutcome> {
    const { tools, maxSteps } = this.options;
    // A step's calls, and their reviews, listen to the turn's signal all at once: not a leak.
    setMaxListeners(MAX_CALLS_PER_STEP + LISTENERS_BESIDES_CALLS, turn.signal);
    const definitions = maxSteps > 1 ? await tools.list(toolContext(turn, turn.signal)) : [];
    const { resume } = turn;
    const { messages, usage, refused } = soFar(turn);
    if (resume) {
      const again = await finishPausedStep(this.caller, turn, resume, messages);
      if (again) return { kind: 'paused', paused: again };
    }
    for (let step = resume ? resume.paused.step + 1 : 1; ; step++) {
      const offered = step < maxSteps ? definitions : [];
      const reply = await this.ask(turn, step, offered, messages);
      usage.input_tokens += reply.usage?.input_tokens ?? 0;
      usage.output_tokens += reply.usage?.output_tokens ?? 0;
      const stop = reply.usage && turn.meter ? await turn.meter(reply.usage) : undefined;
      const content = truncateWithMarker(reply.content, this.options.answerChars);
      if (reply.toolCalls.length === 0 || offered.length === 0) return answered(messages, { ...reply, content }, usage);
      const calls = uniqueCallIds(reply.toolCalls.slice(0, MAX_CALLS_PER_STEP), messages, step);
      messages.push({ role: 'assistant', content, tool_calls: calls });
      const { pending, ran } = await this.callStep(calls, turn, step, refused);
      if (pending.length > 0) return { kind: 'paused', paused: { step, messages, usage, ran, pending, refused, askedAt: Date.now() } };
      pushResults(messages, calls, ran);
      if (stop !== undefined) return answered(messages, { content: stop, toolCalls: [] }, usage);
    }
  }

  /** One model call of the step, within the model's slots: a slow or stuck model holds up its own chats, not every model of its kind. */
  private ask(turn: AgentTurn, step: number, offered: ToolDefinition[], messages: TurnMessage[]): Promise<ProviderReply> {
    return inModelSpan(turn.model, step, (timed) =>
      this.options.limiter.run(turn.model.id, async () => {
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
            ...(sink ? { stream: timed(sink) } : {}),
          });
        } finally {
          modelSignal.dispose();
        }
      }),
    );
  }

  /**
   * The step's calls reported and reviewed: those that need their owner's decision wait
   * (`pending`), the others run (`ran`). A refused plan's errors are kept in `refused`.
   */
  private async callStep(
    calls: ToolCall[],
    turn: AgentTurn,
    step: number,
    refused: Record<string, string[]>,
  ): Promise<{ pending: ApprovalRequest[]; ran: Record<string, ToolCallOutcome> }> {
    for (const call of calls) await turn.report({ type: 'tool_call', step, id: call.id, name: call.name, arguments: call.arguments });
    const reviews = await Promise.all(
      calls.map((call) => this.options.tools.review(call.name, call.arguments, toolContext(turn, turn.signal))),
    );
    for (const { plan, refusal } of reviews) {
      if (refusal && plan) refused[plan.operation] = [...new Set([...(refused[plan.operation] ?? []), ...plan.errors.map(planErrorText)])];
    }
    const reviewed = calls.map((call, index) => ({ call, review: reviews[index]! }));
    const waiting = reviewed.filter(({ review }) => review.needsApproval && !review.refusal);
    const pending = waiting.map(({ call, review }) => approvalRequest(call, review, refused));
    const ran = await this.caller.callReviewed(
      reviewed.filter((entry) => !waiting.includes(entry)),
      turn,
      step,
    );
    return { pending, ran };
  }
}

/** Where a turn starts: its user's message, or where it paused. */
function soFar({ message, resume }: AgentTurn): TurnSoFar {
  if (!resume) return { messages: [{ role: 'user', content: message }], usage: { input_tokens: 0, output_tokens: 0 }, refused: {} };
  const { paused } = resume;
  return { messages: [...paused.messages], usage: { ...paused.usage }, refused: { ...paused.refused } };
}

/** The turn answered `reply`: its text ends the turn's messages. */
function answered(messages: TurnMessage[], reply: ProviderReply, usage: TokenCount): AgentOutcome {
  messages.push({ role: 'assistant', content: reply.content });
  return { kind: 'answered', messages: withoutImages(messages), reply, usage };
}

/** A call waiting for its owner's decision, as they are asked it. */
function approvalRequest(call: ToolCall, review: ToolCallReview, refused: Record<string, string[]>): ApprovalRequest {
  const fixed = review.plan ? (refused[review.plan.operation] ?? []) : [];
  return {
    id: call.id,
    tool: call.name,
    server: review.server,
    ...(review.serverRef ? { server_ref: review.serverRef } : {}),
    arguments: call.arguments,
    ...(review.plan ? { plan: review.plan } : {}),
    ...(fixed.length ? { fixed } : {}),
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
