import { randomUUID } from 'node:crypto';
import type { McpElicitation, McpElicitationAnswer } from '../mcp-client/mcp-connector.port.js';
import type { ElicitingCall } from './agent/turn-types.js';
import type { ChatProgress, ElicitationRequest } from './chat.jobs.js';
import type { ElicitationAnswer, ElicitationStore } from './elicitation-store.port.js';

/** How often a waiting call looks for its user's answer (the answer is taken by the API, in another process). */
const ANSWER_POLL_MS = 250;
/** Questions are kept this long past their expiry (as long as a finished turn's job), for the job's view. */
const KEPT_MS = 3_600_000;

export interface TurnElicitationsOptions {
  store: ElicitationStore;
  turnId: string;
  report: (progress: ChatProgress) => Promise<void>;
  /** APPROVAL_TIMEOUT_S: an unanswered question counts as cancelled after this. */
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
  /** Waits `ms` or until `signal` aborts (tests drive it by hand). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The questions MCP servers put to one turn's user while its tool calls run: each is stored (the
 * job's view shows it, the turn's stream says `elicitation_required`), then the call waits for the
 * answer the user gives through the API, or counts it as `cancel` once APPROVAL_TIMEOUT_S passes
 * or the call ends.
 */
export class TurnElicitations {
  private readonly now: () => number;

  constructor(private readonly options: TurnElicitationsOptions) {
    this.now = options.now ?? Date.now;
  }

  async ask(
    question: McpElicitation,
    call: ElicitingCall,
    signal: AbortSignal,
  ): Promise<{ answer: McpElicitationAnswer; answeredBy: string | null }> {
    const { store, turnId, timeoutMs } = this.options;
    const expiresAt = this.now() + timeoutMs;
    const request: ElicitationRequest = {
      id: randomUUID(),
      call_id: call.id,
      tool: call.name,
      server: call.server,
      mode: question.mode,
      message: question.message,
      ...(question.mode === 'form' ? { requested_schema: question.requestedSchema } : { url: question.url }),
      expires: new Date(expiresAt).toISOString(),
    };
    await store.open(turnId, { request, step: call.step, expiresAt }, timeoutMs + KEPT_MS);
    await this.options.report({ type: 'elicitation_required', step: call.step, elicitation: request });
    const answer = (await this.answered(request.id, expiresAt, signal)) ?? {
      action: 'cancel',
      answered_by: null,
      answered_at: new Date(this.now()).toISOString(),
    };
    await this.options.report({
      type: 'elicitation_answered',
      step: call.step,
      id: request.id,
      call_id: call.id,
      action: answer.action,
      answered_by: answer.answered_by,
    });
    return { answer: { action: answer.action, ...(answer.content ? { content: answer.content } : {}) }, answeredBy: answer.answered_by };
  }

  /** The answer that counts: the user's, or the lapse recorded when the wait runs out or the call ends first. */
  private async answered(id: string, expiresAt: number, signal: AbortSignal): Promise<ElicitationAnswer | null> {
    const { store, turnId, pollMs = ANSWER_POLL_MS, sleep = pause } = this.options;
    while (!signal.aborted && this.now() < expiresAt) {
      const stored = await store.get(turnId, id);
      if (stored?.answer) return stored.answer;
      await sleep(Math.min(pollMs, Math.max(0, expiresAt - this.now())), signal);
    }
    return store.settle(turnId, id, { action: 'cancel', answered_by: null, answered_at: new Date(this.now()).toISOString() });
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
