import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ChatProvider, ProviderCallPolicy, ProviderRequest, ProviderTarget } from './provider.port.js';
import { sdkTimeoutMs, callProvider } from './provider-http.adapter.js';
import {
  fromOpenAiCompletion,
  OpenAiChunkAccumulator,
  toOpenAiMessages,
  toOpenAiTools,
  type OpenAiChunk,
  type OpenAiCompletion,
} from './openai-format.js';
import { StreamedText } from './streamed-text.js';
import { eachServerSentJson } from './server-sent-json.adapter.js';

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
  };
}

/** The streaming variant: usage in the last chunk (a `model_config` may say otherwise). */
export function streamingCompletionBody(model: string, request: ProviderRequest): ChatCompletionCreateParamsStreaming {
  const { stream: _whole, ...body } = completionBody(model, request);
  return { stream_options: { include_usage: true }, ...body, stream: true };
}

/**
 * Runs a chat completion on a client built per attempt (each attempt gets its own fetch); with a
 * text sink, as the server's stream of chunks, assembled as they come (read with a plain event
 * parser: lighter than the SDK's helper, which keeps a snapshot of the whole completion after every
 * chunk, and than its event decoder), or as one whole completion from a server that answers a
 * request to stream without streaming.
 */
export function openAiCompatibleProvider(
  target: ProviderTarget,
  policy: ProviderCallPolicy,
  client: (fetch: typeof globalThis.fetch) => OpenAI,
): ChatProvider {
  return {
    async chat(request) {
      const options = { signal: request.signal };
      if (!request.stream) {
        const completion = await callProvider(policy, options, (fetch) =>
          client(fetch).chat.completions.create(completionBody(target.model, request), { signal: request.signal }),
        );
        return fromOpenAiCompletion(completion);
      }
      const text = new StreamedText(request.stream);
      const completion = await callProvider(policy, options, async (fetch): Promise<OpenAiCompletion> => {
        const write = text.attempt();
        const response = await client(fetch)
          .chat.completions.create(streamingCompletionBody(target.model, request), { signal: request.signal })
          .asResponse();
        if (!response.headers.get('content-type')?.includes('text/event-stream')) {
          // A compatible server that does not stream answers the whole completion: shown at once.
          const whole = (await response.json()) as OpenAiCompletion;
          write(whole.choices?.[0]?.message?.content ?? '');
          return whole;
        }
        const accumulator = new OpenAiChunkAccumulator(write);
        await eachServerSentJson<OpenAiChunk>(response, (chunk) => accumulator.add(chunk));
        return accumulator.completion();
      });
      return fromOpenAiCompletion(completion);
    },
  };
}

/**
 * OpenAI (or any server speaking its API at `hosted_endpoint`): Bearer key from the secret. A model
 * without a secret (a local server) sends no Authorization header rather than an empty Bearer.
 */
export const openAiProvider = (target: ProviderTarget, policy: ProviderCallPolicy): ChatProvider =>
  openAiCompatibleProvider(
    target,
    policy,
    (fetch) =>
      new OpenAI({
        apiKey: target.credential ?? '',
        ...(target.credential ? {} : { defaultHeaders: { Authorization: null } }),
        baseURL: target.hostedEndpoint || OPENAI_DEFAULT_BASE_URL,
        organization: null,
        project: null,
        maxRetries: 0,
        timeout: sdkTimeoutMs(policy),
        fetch,
      }),
  );
