import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ChatProvider, ProviderCallPolicy, ProviderRequest, ProviderTarget } from './provider.js';
import { sdkTimeoutMs, callProvider } from './provider-http.js';
import { fromOpenAiCompletion, toOpenAiMessages, toOpenAiTools } from './openai-format.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The chat-completions body: `model_config` first, then what the service decides. */
export function completionBody(model: string, request: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  return {
    ...request.options,
    model,
    messages: toOpenAiMessages(request.messages),
    temperature: request.temperature,
    ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
    stream: false,
  } as ChatCompletionCreateParamsNonStreaming;
}

/** Runs a chat completion on a client built per attempt (each attempt gets its own fetch). */
export function openAiCompatibleProvider(target: ProviderTarget, policy: ProviderCallPolicy, client: (fetch: typeof globalThis.fetch) => OpenAI): ChatProvider {
  return {
    async chat(request) {
      const completion = await callProvider(policy, { signal: request.signal, credential: target.credential }, (fetch) =>
        client(fetch).chat.completions.create(completionBody(target.model, request), { signal: request.signal }),
      );
      return fromOpenAiCompletion(completion);
    },
  };
}

/** OpenAI (or any server speaking its API at `hosted_endpoint`): Bearer key from the secret. */
export const openAiProvider = (target: ProviderTarget, policy: ProviderCallPolicy): ChatProvider =>
  openAiCompatibleProvider(target, policy, (fetch) =>
    new OpenAI({
      apiKey: target.credential ?? '',
      baseURL: target.hostedEndpoint || OPENAI_DEFAULT_BASE_URL,
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: sdkTimeoutMs(policy),
      fetch,
    }),
  );
