import type { ChatProgress } from '../jobs/catalogue.js';
import type { ChatTools, ToolContext, TurnCredential } from '../chat/chat-tools.port.js';
import { UnavailableError } from '../errors.js';
import type { ConcurrencyLimiter } from '../providers/concurrency-limiter.js';
import type { ChatMessage, ChatProvider, ProviderReply, TextSink, ToolCall } from '../providers/provider.port.js';
import type { LlmModelRecord } from '../records/llm-model.js';
import { truncateWithMarker } from './truncate.js';

/** Tool results in the event stream are cut to this many characters (the model gets its whole budget). */
const EVENT_CONTENT_LIMIT = 2_000;

export interface AgentLoopOptions {
  tools: ChatTools;
  /** Caps concurrent calls per provider kind. */
  limiter: ConcurrencyLimiter;
  /** Model calls per turn (AGENT_MAX_STEPS); the last one is offered no tools, so it must answer. */
  maxSteps: number;
  /** Limit of one tool call. */
  toolTimeoutMs: number;
  /** Characters of one tool result the model sees; the rest is cut with a marker. */
  resultChars: number;
  /** Characters of one model answer kept (and stored); the rest is cut with a marker. */
  answerChars: number;
}

export interface AgentTurn {
  provider: ChatProvider;
  model: Pick<LlmModelRecord, 'provider' | 'temperature' | 'model_config'>;
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
}

export interface AgentOutcome {
  /** This turn's messages: the user's, each assistant step with its tool calls, each tool result, the answer. */
  messages: ChatMessage[];
  reply: ProviderReply;
  usage: { input_tokens: number; output_tokens: number };
}

/**
 * The tool-calling loop of one chat turn: ask the model with the tools of every usable server,
 * run the calls it asks for (in parallel, each with its own time limit), give it the results, and
 * repeat until it answers in text or the step limit leaves it no tools. A failing or slow tool
 * becomes an error result the model can react to; only a lost dependency (Redis) or the turn's
 * own deadline fails the turn.
 */
export class AgentLoop {
  constructor(private readonly options: AgentLoopOptions) {}

  async run(turn: AgentTurn): Promise<AgentOutcome> {
    const { tools, limiter, maxSteps } = this.options;
    const definitions = maxSteps > 1 ? await tools.list(toolContext(turn, turn.signal)) : [];
    const messages: ChatMessage[] = [{ role: 'user', content: turn.message }];
    const usage = { input_tokens: 0, output_tokens: 0 };
    for (let step = 1; ; step++) {
      const offered = step < maxSteps ? definitions : [];
      const reply = await limiter.run(turn.model.provider, () =>
        turn.provider.chat({
          messages: [...turn.prompt, ...messages],
          tools: offered,
          temperature: turn.model.temperature,
          options: turn.model.model_config,
          signal: turn.signal,
          ...(turn.text ? { stream: capped(turn.text(step), this.options.answerChars) } : {}),
        }),
      );
      usage.input_tokens += reply.usage?.input_tokens ?? 0;
      usage.output_tokens += reply.usage?.output_tokens ?? 0;
      const content = truncateWithMarker(reply.content, this.options.answerChars);
      if (reply.toolCalls.length === 0 || offered.length === 0) {
        messages.push({ role: 'assistant', content });
        return { messages, reply: { ...reply, content }, usage };
      }
      messages.push({ role: 'assistant', content, tool_calls: reply.toolCalls });
      for (const call of reply.toolCalls) await turn.report({ type: 'tool_call', step, id: call.id, name: call.name, arguments: call.arguments });
      const results = await Promise.all(reply.toolCalls.map((call) => this.callTool(call, turn, step)));
      reply.toolCalls.forEach((call, index) => messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: results[index] as string }));
    }
  }

  /** One call: its result (or error) as the text the model sees, reported as it finishes. */
  private async callTool(call: ToolCall, turn: AgentTurn, step: number): Promise<string> {
    const { ok, content } = await this.outcome(call, turn);
    const shown = truncateWithMarker(content, this.options.resultChars);
    await turn.report({ type: 'tool_result', step, id: call.id, name: call.name, ok, content: shown.slice(0, EVENT_CONTENT_LIMIT) });
    return shown;
  }

  private async outcome(call: ToolCall, turn: AgentTurn): Promise<{ ok: boolean; content: string }> {
    const timeout = AbortSignal.timeout(this.options.toolTimeoutMs);
    const signal = AbortSignal.any([turn.signal, timeout]);
    try {
      return { ok: true, content: await abortable(this.options.tools.call(call.name, call.arguments, toolContext(turn, signal)), signal) };
    } catch (error) {
      if (error instanceof UnavailableError || turn.signal.aborted) throw error;
      if (timeout.aborted) return { ok: false, content: `error: the tool did not answer within ${this.options.toolTimeoutMs / 1_000} s` };
      return { ok: false, content: `error: ${(error as Error).message}` };
    }
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
  return { userId: turn.userId, signal, ...(turn.credential ? { credential: turn.credential } : {}) };
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
