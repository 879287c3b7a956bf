import { randomUUID } from 'node:crypto';
import { ProviderError, type ChatMessage, type ProviderReply, type ToolCall, type ToolDefinition } from './provider.port.js';

/*
 * The OpenAI chat-completions wire format, shared by OpenAI, Azure OpenAI and Hugging Face
 * (whose chat-completion API is the same shape): messages with `tool_calls` whose arguments are
 * JSON text, tool results as `role: "tool"` messages, function tools.
 */

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Parts of a user message: the images a tool returned, since a tool message holds text only. */
export type OpenAiContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'user'; content: OpenAiContentPart[] }
  | { role: 'assistant'; content: string; tool_calls?: OpenAiToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What a chat completion answers, loosely: Hugging Face may send arguments as an object. */
export interface OpenAiCompletion {
  choices?: {
    message?: { content?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[] | null };
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * Neutral messages → chat completions. A tool message holds text only: the images of a step's
 * results follow its last tool message as one user message of image parts (the results must come
 * straight after the assistant's calls).
 */
export function toOpenAiMessages(messages: ChatMessage[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  let images: OpenAiContentPart[] = [];
  for (const [index, message] of messages.entries()) {
    out.push(toOpenAiMessage(message));
    if (message.role !== 'tool') continue;
    for (const image of message.images ?? []) {
      images.push(
        { type: 'text', text: `An image returned by the tool ${message.name} (call ${message.tool_call_id}):` },
        { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } },
      );
    }
    if (images.length > 0 && messages[index + 1]?.role !== 'tool') {
      out.push({ role: 'user', content: images });
      images = [];
    }
  }
  return out;
}

function toOpenAiMessage(message: ChatMessage): OpenAiMessage {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length
          ? {
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

export function toOpenAiTools(tools: ToolDefinition[]): OpenAiTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Tool arguments arrive as JSON text (OpenAI) or as an object (some Hugging Face servers). */
export function parseArguments(value: unknown): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== 'string' || value.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through: the model wrote something that is not a JSON object
  }
  throw new ProviderError('invalid_response', 'the model called a tool with arguments that are not a JSON object');
}

export function generatedCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

export function fromOpenAiCompletion(completion: OpenAiCompletion): ProviderReply {
  const message = completion.choices?.[0]?.message;
  if (!message) throw new ProviderError('invalid_response', 'the answer has no choices');
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({
    id: call.id || generatedCallId(),
    name: call.function?.name ?? '',
    arguments: parseArguments(call.function?.arguments),
  }));
  const usage = completion.usage;
  return {
    content: message.content ?? '',
    toolCalls,
    ...(usage ? { usage: { input_tokens: usage.prompt_tokens ?? 0, output_tokens: usage.completion_tokens ?? 0 } } : {}),
  };
}

/** One chunk of a streamed chat completion, loosely (servers differ in what they leave out). */
export interface OpenAiChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] | null;
    };
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * Builds the whole completion from streamed chunks: the text as it comes (handed to `write`),
 * tool calls from their pieces (the id and name first, the arguments' JSON in fragments).
 */
export class OpenAiChunkAccumulator {
  private content = '';
  private readonly calls: { id: string; name: string; arguments: string }[] = [];
  private usage: OpenAiCompletion['usage'];
  private choices = 0;

  constructor(private readonly write: (delta: string) => void) {}

  add(chunk: OpenAiChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    if (chunk.choices !== undefined && !Array.isArray(chunk.choices))
      throw new ProviderError('invalid_response', 'a streamed chunk has choices that are not a list');
    this.choices += chunk.choices?.length ?? 0;
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) return;
    if (delta.content) {
      this.content += delta.content;
      this.write(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) {
      const index = piece.index ?? this.calls.length;
      const call = (this.calls[index] ??= { id: '', name: '', arguments: '' });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
    }
  }

  /** The whole answer; a stream that ended without one choice (not SSE, cut short) is unreadable. */
  completion(): OpenAiCompletion {
    if (this.choices === 0) throw new ProviderError('invalid_response', 'the streamed answer has no choices');
    const toolCalls = this.calls.filter(Boolean).map((call) => ({ id: call.id, function: { name: call.name, arguments: call.arguments } }));
    return { choices: [{ message: { content: this.content, tool_calls: toolCalls } }], usage: this.usage };
  }
}
