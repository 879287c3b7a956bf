import { Ollama, type ChatRequest, type ChatResponse, type Message, type Tool, type ToolCall } from 'ollama';
import { ProviderError, type ChatMessage, type ProviderFactory, type ProviderReply, type ProviderRequest } from './provider.port.js';
import { callProvider } from './provider-http.adapter.js';
import { StreamedText } from './streamed-text.js';
import { generatedCallId } from './openai-format.js';

/** Request fields Ollama takes beside `options`; every other `model_config` key is a model option. */
const TOP_LEVEL = new Set(['keep_alive', 'format', 'think']);

export function toOllamaMessages(messages: ChatMessage[]): Message[] {
  return messages.map((message): Message => {
    if (message.role === 'assistant') {
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length
          ? { tool_calls: message.tool_calls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
    }
    if (message.role === 'tool') {
      // Vision models see a tool's images; the content describes them for the others.
      const images = message.images?.map((image) => image.data);
      return { role: 'tool', content: message.content, tool_name: message.name, ...(images?.length ? { images } : {}) };
    }
    return { role: message.role, content: message.content };
  });
}

export function ollamaBody(model: string, request: ProviderRequest): ChatRequest & { stream: false } {
  const topLevel: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.options)) {
    if (TOP_LEVEL.has(key)) topLevel[key] = value;
    // The common name for the reply budget; Ollama calls it num_predict.
    else options[key === 'max_tokens' ? 'num_predict' : key] = value;
  }
  return {
    ...topLevel,
    model,
    messages: toOllamaMessages(request.messages),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool): Tool => ({
            type: 'function',
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
    options: { ...options, temperature: request.temperature },
    stream: false,
  };
}

function fromOllamaResponse(response: ChatResponse): ProviderReply {
  return {
    content: response.message.content ?? '',
    toolCalls: (response.message.tool_calls ?? []).map((call) => ({
      id: generatedCallId(),
      name: call.function.name,
      arguments: call.function.arguments ?? {},
    })),
    usage: { input_tokens: response.prompt_eval_count ?? 0, output_tokens: response.eval_count ?? 0 },
  };
}

/**
 * The streamed answer as one: the text of every part (handed to `write` as it comes), the tool
 * calls of whichever part carries them, the counts of the last.
 */
async function collect(parts: AsyncIterable<ChatResponse>, write: (delta: string) => void): Promise<ChatResponse> {
  let content = '';
  const toolCalls: ToolCall[] = [];
  let last: ChatResponse | undefined;
  for await (const part of parts) {
    content += part.message.content ?? '';
    write(part.message.content ?? '');
    toolCalls.push(...(part.message.tool_calls ?? []));
    last = part;
  }
  if (!last) throw new ProviderError('invalid_response', 'the streamed answer was empty');
  return { ...last, message: { ...last.message, content, tool_calls: toolCalls } };
}

/**
 * Ollama `/api/chat` at `hosted_endpoint` or OLLAMA_HOST; a secret, if named, goes as a bearer
 * token (for proxies). With a text sink, streamed (the SDK's async iterator of parts).
 */
export function ollamaProviderFactory(defaultHost: string): ProviderFactory {
  return (target, policy) => {
    const client = (fetch: typeof globalThis.fetch) =>
      new Ollama({
        host: target.hostedEndpoint || defaultHost,
        fetch,
        ...(target.credential ? { headers: { Authorization: `Bearer ${target.credential}` } } : {}),
      });
    return {
      async chat(request) {
        const options = { signal: request.signal };
        if (!request.stream)
          return fromOllamaResponse(await callProvider(policy, options, (fetch) => client(fetch).chat(ollamaBody(target.model, request))));
        const text = new StreamedText(request.stream);
        // The turn's signal reaches the stream through the attempt's fetch.
        const response = await callProvider(policy, options, async (fetch) =>
          collect(await client(fetch).chat({ ...ollamaBody(target.model, request), stream: true }), text.attempt()),
        );
        return fromOllamaResponse(response);
      },
    };
  };
}
