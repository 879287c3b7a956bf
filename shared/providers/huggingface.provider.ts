import { getProviderHelper, InferenceClient, makeRequestOptions, type InferenceProviderOrPolicy } from '@huggingface/inference';
import type { ProviderFactory, ProviderRequest } from './provider.js';
import { callProvider } from './provider-http.js';
import { fromOpenAiCompletion, toOpenAiMessages, toOpenAiTools, type OpenAiCompletion } from './openai-format.js';

type ChatCompletionInput = Parameters<InferenceClient['chatCompletion']>[0];

/** `model_config` key choosing the Inference Providers route for hub models (default: the server-side auto-router). */
const ROUTE_KEY = 'inference_provider';

export function huggingFaceBody(model: string, request: ProviderRequest): ChatCompletionInput {
  const { [ROUTE_KEY]: _route, ...options } = request.options;
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
 * Inference Providers API for the repository named by the model.
 */
export const huggingFaceProvider: ProviderFactory = (target, policy) => ({
  async chat(request) {
    const body = huggingFaceBody(target.model, request);
    const completion = await callProvider(policy, { signal: request.signal, credential: target.credential }, async (fetch): Promise<OpenAiCompletion> => {
      if (!target.hostedEndpoint) {
        const route = request.options[ROUTE_KEY];
        return new InferenceClient(target.credential, { fetch, retry_on_error: false, signal: request.signal }).chatCompletion({
          ...body,
          ...(typeof route === 'string' ? { provider: route as InferenceProviderOrPolicy } : {}),
        });
      }
      const helper = getProviderHelper('hf-inference', 'conversational');
      const { url, info } = await makeRequestOptions(
        { ...body, accessToken: target.credential, endpointUrl: target.hostedEndpoint },
        helper,
        { task: 'conversational', signal: request.signal },
      );
      const response = await fetch(url, info);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return (await response.json()) as OpenAiCompletion;
    });
    return fromOpenAiCompletion(completion);
  },
});
