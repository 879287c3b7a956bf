import { Ollama, type ChatRequest, type Message, type Tool } from 'ollama';
import type { ChatMessage, ProviderFactory, ProviderRequest } from './provider.js';
import { callProvider } from './provider-http.js';
import { generatedCallId } from './openai-format.js';

/** Request fields Ollama takes beside `options`; every other `model_config` key is a model option. */
const TOP_LEVEL = new Set(['keep_alive', 'format', 'think']);

export function toOllamaMessages(messages: ChatMessage[]): Message[] {
  return messages.map((message): Message => {
    if (message.role === 'assistant') {
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) } : {}),
      };
    }
    if (message.role === 'tool') return { role: 'tool', content: message.content, tool_name: message.name };
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
      ? { tools: request.tools.map((tool): Tool => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters as Tool['function']['parameters'] } })) }
      : {}),
    options: { ...options, temperature: request.temperature },
    stream: false,
  };
}

/** Ollama `/api/chat` at `hosted_endpoint` or OLLAMA_HOST; a secret, if named, goes as a bearer token (for proxies). */
export function ollamaProviderFactory(defaultHost: string): ProviderFactory {
  return (target, policy) => ({
    async chat(request) {
      const response = await callProvider(policy, { signal: request.signal, credential: target.credential }, (fetch) =>
        new Ollama({
          host: target.hostedEndpoint || defaultHost,
          fetch,
          ...(target.credential ? { headers: { Authorization: `Bearer ${target.credential}` } } : {}),
        }).chat(ollamaBody(target.model, request)),
      );
      return {
        content: response.message.content ?? '',
        toolCalls: (response.message.tool_calls ?? []).map((call) => ({ id: generatedCallId(), name: call.function.name, arguments: call.function.arguments ?? {} })),
        usage: { input_tokens: response.prompt_eval_count ?? 0, output_tokens: response.eval_count ?? 0 },
      };
    },
  });
}
