import Anthropic from '@anthropic-ai/sdk';
import type {
  Base64ImageSource,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage, ChatProvider, ProviderFactory, ProviderReply, ProviderRequest } from './provider.port.js';
import { sdkTimeoutMs, callProvider } from './provider-http.adapter.js';
import { StreamedText } from './streamed-text.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The Messages API requires max_tokens; model_config.max_tokens overrides this. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1_024;

/** A tool result's content: its text, with its images as image blocks when it returned some. */
function toolResultContent(message: Extract<ChatMessage, { role: 'tool' }>): ToolResultBlockParam['content'] {
  if (!message.images?.length) return message.content;
  return [
    { type: 'text', text: message.content },
    ...message.images.map((image) => ({
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: image.mimeType as Base64ImageSource['media_type'], data: image.data },
    })),
  ];
}

/** Neutral messages → Messages API: system text apart, tool calls as tool_use blocks, results (with their images) as tool_result blocks. */
export function toAnthropicMessages(messages: ChatMessage[]): { system: string; messages: MessageParam[] } {
  const system: string[] = [];
  const out: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      system.push(message.content);
    } else if (message.role === 'user') {
      out.push({ role: 'user', content: message.content });
    } else if (message.role === 'assistant') {
      const blocks: ContentBlockParam[] = message.content ? [{ type: 'text', text: message.content }] : [];
      for (const call of message.tool_calls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
      out.push({ role: 'assistant', content: message.tool_calls?.length ? blocks : message.content });
    } else {
      const result: ContentBlockParam = { type: 'tool_result', tool_use_id: message.tool_call_id, content: toolResultContent(message) };
      const previous = out.at(-1);
      // Results of one assistant turn travel together in a single user message.
      if (previous?.role === 'user' && Array.isArray(previous.content) && previous.content.every((block) => block.type === 'tool_result')) {
        previous.content.push(result);
      } else {
        out.push({ role: 'user', content: [result] });
      }
    }
  }
  return { system: system.join('\n\n'), messages: out };
}

export function anthropicBody(model: string, request: ProviderRequest): MessageCreateParamsNonStreaming {
  const { system, messages } = toAnthropicMessages(request.messages);
  return {
    max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...request.options,
    model,
    messages,
    ...(system ? { system } : {}),
    temperature: request.temperature,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: { type: 'object' as const, ...tool.parameters },
          })),
        }
      : {}),
    stream: false,
  };
}

export function fromAnthropicMessage(message: Anthropic.Message): ProviderReply {
  const text: string[] = [];
  const toolCalls: ProviderReply['toolCalls'] = [];
  for (const block of message.content) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use')
      toolCalls.push({ id: block.id, name: block.name, arguments: (block.input ?? {}) as Record<string, unknown> });
  }
  return {
    content: text.join(''),
    toolCalls,
    usage: { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens },
  };
}

/**
 * Anthropic Messages API: `x-api-key` and `anthropic-version` headers (set by the SDK). With a
 * text sink, through the SDK's message stream, which also assembles the whole message.
 */
export const anthropicProvider: ProviderFactory = (target, policy): ChatProvider => {
  const client = (fetch: typeof globalThis.fetch) =>
    new Anthropic({
      apiKey: target.credential ?? null,
      authToken: null,
      baseURL: target.hostedEndpoint || ANTHROPIC_DEFAULT_BASE_URL,
      maxRetries: 0,
      timeout: sdkTimeoutMs(policy),
      fetch,
    });
  return {
    async chat(request) {
      const options = { signal: request.signal };
      if (!request.stream) {
        return fromAnthropicMessage(
          await callProvider(policy, options, (fetch) =>
            client(fetch).messages.create(anthropicBody(target.model, request), { signal: request.signal }),
          ),
        );
      }
      const text = new StreamedText(request.stream);
      const message = await callProvider(policy, options, (fetch) => {
        const write = text.attempt();
        const { stream: _whole, ...body } = anthropicBody(target.model, request);
        const stream = client(fetch).messages.stream(body, { signal: request.signal });
        stream.on('text', (delta) => write(delta));
        return stream.finalMessage();
      });
      return fromAnthropicMessage(message);
    },
  };
};
