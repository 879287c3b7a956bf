import { getProviderHelper, InferenceClient, makeRequestOptions, type InferenceProviderOrPolicy } from '@huggingface/inference';
import type { ProviderFactory, ProviderRequest } from './provider.port.js';
import { callProvider } from './provider-http.adapter.js';
import {
  fromOpenAiCompletion,
  OpenAiChunkAccumulator,
  toOpenAiMessages,
  toOpenAiTools,
  type OpenAiChunk,
  type OpenAiCompletion,
} from './openai-format.js';
import { UpstreamError } from '../../kernel/errors.js';
import { PROVIDER_KINDS } from '../../records/provider-kinds.js';
import { StreamedText } from './streamed-text.js';
import { eachServerSentJson } from './server-sent-json.adapter.js';

type ChatCompletionInput = Parameters<InferenceClient['chatCompletion']>[0];

const ROUTE_KEY = PROVIDER_KINDS.huggingface.routeKey;

/**
 * The SDK's arguments that say where a request goes, with what credential and on whose bill, rather
 * than what to generate: never taken from `model_config`, whose only route key is `inference_provider`
 * (a change to it counts as a new destination; a change to these would not).
 */
const SDK_ROUTING_KEYS = new Set(['provider', 'endpointUrl', 'accessToken', 'billTo']);

export function huggingFaceBody(model: string, request: ProviderRequest): ChatCompletionInput {
  const options = Object.fromEntries(Object.entries(request.options).filter(([key]) => key !== ROUTE_KEY && !SDK_ROUTING_KEYS.has(key)));
  return {
    ...options,
    model,
    messages: toOpenAiMessages(request.messages),
    temperature: request.temperature,
    ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
  } as ChatCompletionInput;
}

/**
 * Hugging Face chat completion. With `hosted_endpoint` (a dedicated Inference Endpoint or any TGI
 * server): `{endpoint}/v1/chat/completions`, the request built by the SDK's own hf-inference
 * helper (its `chatCompletion` sends endpoint URLs to the hub router instead). Without: the hosted
 * Inference Providers API for the repository named by the model. With a text sink, streamed: the
 * SDK's `chatCompletionStream` on the hub, server-sent events read with the OpenAI SDK's parser
 * from an endpoint (TGI speaks OpenAI's streaming format).
 */
export const huggingFaceProvider: ProviderFactory = (target, policy) => ({
  async chat(request) {
    const body = huggingFaceBody(target.model, request);
    const route = request.options[ROUTE_KEY];
    const hub = (fetch: typeof globalThis.fetch) =>
      new InferenceClient(target.credential, { fetch, retry_on_error: false, signal: request.signal });
    const hubBody = { ...body, ...(typeof route === 'string' ? { provider: route as InferenceProviderOrPolicy } : {}) };
    const endpoint = async (fetch: typeof globalThis.fetch, stream: boolean): Promise<Response> => {
      const helper = getProviderHelper('hf-inference', 'conversational');
      const { url, info } = await makeRequestOptions(
        { ...body, ...(stream ? { stream: true } : {}), accessToken: target.credential, endpointUrl: target.hostedEndpoint },
        helper,
        { task: 'conversational', signal: request.signal },
      );
      const response = await fetch(url, info);
      if (!response.ok) throw new UpstreamError(`HTTP ${response.status}`);
      return response;
    };
    const options = { signal: request.signal };
    if (!request.stream) {
      const completion = await callProvider(policy, options, async (fetch): Promise<OpenAiCompletion> =>
        target.hostedEndpoint ? ((await (await endpoint(fetch, false)).json()) as OpenAiCompletion) : hub(fetch).chatCompletion(hubBody),
      );
      return fromOpenAiCompletion(completion);
    }
    const text = new StreamedText(request.stream);
    const completion = await callProvider(policy, options, async (fetch) => {
      const accumulator = new OpenAiChunkAccumulator(text.attempt());
      const add = (chunk: OpenAiChunk) => accumulator.add(chunk);
      if (target.hostedEndpoint) await eachServerSentJson(await endpoint(fetch, true), add);
      else for await (const chunk of hub(fetch).chatCompletionStream(hubBody) as AsyncIterable<OpenAiChunk>) add(chunk);
      return accumulator.completion();
    });
    return fromOpenAiCompletion(completion);
  },
});
