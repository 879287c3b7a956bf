import { linkedSignal } from '../../kernel/linked-signal.js';
import type { McpCallHooks, McpElicitation, McpSamplingRequest } from '../../mcp-client/mcp-connector.port.js';
import type { AuditedCall } from '../audit/tool-call-audit.js';
import type { ToolCallFacts } from '../chat-tools.port.js';
import type { ConcurrencyLimiter } from '../providers/concurrency-limiter.js';
import type { ToolCall } from '../providers/provider.port.js';
import type { AgentTurn } from './turn-types.js';
import type { ToolDeadline } from './tool-deadline.js';

/**
 * Progress events of one call on the turn's stream: every event rewrites the turn's whole log, so
 * a server reporting without end is heard this many times (its time limit still restarts).
 */
export const MAX_PROGRESS_EVENTS = 100;

/** The audit log's name for a server's question to the user. */
export const ELICITATION_AUDIT_TOOL = 'elicitation/create';

export interface HookedCall {
  step: number;
  call: ToolCall;
  deadline: ToolDeadline;
  /** What the tool learned of the call (its server's name, once known). */
  facts: ToolCallFacts;
}

export interface ToolCallHooksOptions {
  limiter: ConcurrencyLimiter;
  /** Writes an entry in the audit log, for a turn that says whose it is. */
  audit(call: AuditedCall): Promise<void>;
}

/**
 * What one tool call hears from its MCP server while it runs, for the turn: progress (a
 * `tool_progress` event, and its idle limit starts again), a question for the turn's user (asked
 * like an approval, the call's idle limit held meanwhile, the answer audited), a completion
 * (served by the turn's model, counted against its user's budget).
 */
export function toolCallHooks(
  turn: AgentTurn,
  hooked: HookedCall,
  options: ToolCallHooksOptions,
): McpCallHooks & { /** Once the call's progress events are out (its result comes after them). */ drained(): Promise<void> } {
  const { step, call, deadline, facts } = hooked;
  let progressEvents = 0;
  let reported = Promise.resolve();
  return {
    drained: () => reported,
    onProgress: ({ progress, total, message }) => {
      deadline.progressed();
      if (++progressEvents > MAX_PROGRESS_EVENTS) return;
      // In order, one after another; a report that fails leaves the call to its result.
      reported = reported
        .then(() =>
          turn.report({
            type: 'tool_progress',
            step,
            id: call.id,
            name: call.name,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message ? { message } : {}),
          }),
        )
        .catch(() => undefined);
    },
    elicit: async (question: McpElicitation, signal: AbortSignal) => {
      if (!turn.elicit) return { action: 'cancel' };
      const started = performance.now();
      deadline.hold();
      // The wait ends with the server's request (cancelled, its session lost) or with the call (the turn stopped, MCP_TOOL_MAX_S).
      const asked = linkedSignal([signal, deadline.signal]);
      try {
        const { answer, answeredBy } = await turn.elicit(
          question,
          { step, id: call.id, name: call.name, server: facts.server ?? '' },
          asked.signal,
        );
        await options.audit({
          tool: ELICITATION_AUDIT_TOOL,
          arguments: {
            tool: call.name,
            mode: question.mode,
            message: question.message,
            action: answer.action,
            ...(answer.content ? { content: answer.content } : {}),
            answered_by: answeredBy,
          },
          server: facts.server ?? null,
          outcome: answer.action === 'accept' ? 'ok' : 'declined',
          durationMs: performance.now() - started,
        });
        return answer;
      } finally {
        asked.dispose();
        deadline.progressed();
      }
    },
    sample: (request: McpSamplingRequest, signal: AbortSignal) => sampled(turn, request, signal, options.limiter),
  };
}

/** A server's completion, by the turn's model within its slots, its tokens counted for the turn's user; refused once their budget is spent. */
async function sampled(turn: AgentTurn, request: McpSamplingRequest, signal: AbortSignal, limiter: ConcurrencyLimiter) {
  await turn.admit?.();
  const reply = await limiter.run(turn.model.id, () =>
    turn.provider.chat({
      messages: [
        ...(request.systemPrompt ? [{ role: 'system' as const, content: request.systemPrompt }] : []),
        ...request.messages.map(({ role, text }) => ({ role, content: text })),
      ],
      tools: [],
      temperature: turn.model.temperature,
      options: turn.model.model_config,
      signal,
    }),
  );
  if (reply.usage && turn.meter) await turn.meter(reply.usage);
  return { text: reply.content, model: turn.model.name };
}
