import { DomainError } from '../../kernel/errors.js';
import type { LlmProvider } from '../../records/llm-model.js';

/** A tool the model may call: a name, what it does and a JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of an object. */
  parameters: Record<string, unknown>;
}

/** A call the model asked for. `id` pairs it with its result (providers without ids get generated ones). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** An image for the model: base64 `data` of `mimeType` (png, jpeg, gif or webp). */
export interface ImagePart {
  mimeType: string;
  data: string;
}

/**
 * One message of a conversation, in a provider-neutral shape. A tool result's `images` go to
 * models as images where the provider takes them (its `content` describes them either way).
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; name: string; content: string; images?: ImagePart[] };

/** Receives a reply's text as the model writes it (streaming providers). */
export interface TextSink {
  /** More of the reply's text. */
  text(delta: string): void;
  /** The call is tried again: the text written so far is void, the reply starts over. */
  restart(): void;
}

export interface ProviderRequest {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  temperature: number;
  /** The model record's `model_config` (max_tokens, top_p, ...), passed through. */
  options: Record<string, unknown>;
  /** Aborts the call (turn deadline, shutdown). */
  signal?: AbortSignal;
  /**
   * Streams the reply's text here as it is written, through the provider's streaming API; the
   * reply is the same whole. Providers that cannot stream (custom handlers) answer whole.
   */
  stream?: TextSink;
}

export interface ProviderReply {
  content: string;
  toolCalls: ToolCall[];
  usage?: { input_tokens: number; output_tokens: number };
}

/** One LLM endpoint, ready to answer: built per turn from the model record and its credential. */
export interface ChatProvider {
  chat(request: ProviderRequest): Promise<ProviderReply>;
}

/** What a handler needs to reach a model: the record's fields and the resolved credential. */
export interface ProviderTarget {
  provider: LlmProvider;
  /** The provider's model name (for Azure, the deployment; for Hugging Face, the repository id). */
  model: string;
  hostedEndpoint: string;
  apiVersion: string;
  /** The secret's value, if the model names one. Never logged, never stored. */
  credential?: string;
  /**
   * The endpoint was chosen by a superuser (or is a configured default), so it may be an internal
   * address; otherwise the outbound policy decides at connection time.
   */
  trusted?: boolean;
}

/** Limits every handler applies to each HTTP call. */
export interface ProviderCallPolicy {
  timeoutMs: number;
  /** Retries after the first attempt, on 429, 5xx, timeouts and connection failures. */
  maxRetries: number;
  /** Waits between attempts (tests record the delays instead of sleeping). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The transport of each call (the outbound policy's fetch; redirects are not followed). */
  fetch?: typeof fetch;
  /** An answer's body beyond this many bytes is refused without being read whole. */
  maxResponseBytes?: number;
}

/** Builds a provider for one target. One factory per provider kind. */
export type ProviderFactory = (target: ProviderTarget, policy: ProviderCallPolicy) => ChatProvider;

/** Why a provider call failed, as far as retrying and explaining it go. */
export type ProviderFailure =
  'auth' | 'rate_limited' | 'bad_request' | 'not_found' | 'server' | 'timeout' | 'network' | 'invalid_response' | 'configuration';

const TRANSIENT: ReadonlySet<ProviderFailure> = new Set(['rate_limited', 'server', 'timeout', 'network']);

/**
 * A failed provider call, as every provider adapter reports it. The message is safe to show: it carries the HTTP status and never the
 * provider's answer (an endpoint may be anything, and its body is not ours to echo).
 */
export class ProviderError extends DomainError {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  get transient(): boolean {
    return TRANSIENT.has(this.failure);
  }
}
