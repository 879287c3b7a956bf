import type { Schemas } from '../api/openapi-types.js';

/*
 * Each provider kind of an LLM model, described once: what the model records, the provider
 * registry (src/chat/providers), the admin page and the lint know of it. Its adapter,
 * `src/chat/providers/<kind>.provider.ts`, is the rest. The pages bundle this file and
 * eslint.config.js loads it with Node's type stripping, so it imports nothing but types and uses
 * no syntax beyond type annotations.
 */

/** A field of the model form as one provider kind uses it. */
export interface FieldText {
  label: string;
  hint: string;
}

export interface ProviderKind {
  /** Its name on the pages. */
  label: string;
  /** The form's `hosted_endpoint`: how the kind uses it, and what an empty one means. */
  endpoint: FieldText;
  /** The form's `model_secret_key`: what the named secret holds and how it is sent. */
  secret: FieldText;
  /**
   * When a call cannot work without a credential: `always`, `without-endpoint` (a public API needs
   * one, a server of one's own may not), or `never` (sent only when the model names a secret).
   */
  needsCredential: 'always' | 'without-endpoint' | 'never';
  /** The highest temperature its API takes; a higher one (the record allows up to 2) is sent as this. */
  maxTemperature: number;
  /** The `api_version` field, for the kinds whose API has versions: sent as this when empty. */
  defaultApiVersion?: string;
  /**
   * The `model_config` keys that only tune generation; any other may steer the model
   * (model-config-keys.ts): an allow-list, because a deny-list misses the next field a provider adds.
   * A custom handler's keys mean what the handler makes of them, so none.
   */
  generationKeys: readonly string[];
  /** The `model_config` key that chooses where its requests (and the credential) go beyond the endpoint. */
  routeKey?: string;
  /** The packages its adapter speaks through, which only adapters may import (the lint's LLM SDKs). */
  sdks: readonly string[];
}

/** Sampling and length knobs of the OpenAI chat-completions format (OpenAI, Azure, Hugging Face). */
const OPENAI_FORMAT = [
  'max_tokens',
  'max_completion_tokens',
  'top_p',
  'frequency_penalty',
  'presence_penalty',
  'seed',
  'stop',
  'reasoning_effort',
];

/** Every provider kind the OpenAPI document lists (LLMProvider), in its order; the compiler asks for a new one here. */
export const PROVIDER_KINDS = {
  ollama: {
    label: 'Ollama',
    endpoint: { label: 'Endpoint (optional)', hint: 'Empty: the worker’s OLLAMA_HOST.' },
    secret: { label: 'Secret (optional)', hint: 'Sent as a bearer token, for an Ollama behind a proxy.' },
    needsCredential: 'never',
    maxTemperature: 2,
    generationKeys: [
      'max_tokens',
      'num_predict',
      'num_ctx',
      'top_k',
      'top_p',
      'min_p',
      'typical_p',
      'seed',
      'stop',
      'repeat_penalty',
      'repeat_last_n',
      'presence_penalty',
      'frequency_penalty',
      'mirostat',
      'mirostat_eta',
      'mirostat_tau',
      'keep_alive',
      'think',
    ],
    sdks: ['ollama'],
  },
  openai: {
    label: 'OpenAI or OpenAI-compatible',
    endpoint: { label: 'Endpoint (optional)', hint: 'Any OpenAI-compatible server, ending in /v1; empty: api.openai.com.' },
    secret: { label: 'API key secret', hint: 'Optional for a local server given an endpoint.' },
    needsCredential: 'without-endpoint',
    maxTemperature: 2,
    generationKeys: OPENAI_FORMAT,
    sdks: ['openai'],
  },
  azure_ai: {
    label: 'Azure OpenAI',
    endpoint: { label: 'Azure OpenAI endpoint', hint: 'https://NAME.openai.azure.com; the deployment is this model’s name.' },
    secret: {
      label: 'API key secret',
      hint: 'The API key, or JSON {"tenant_id", "client_id", "client_secret"} for Microsoft Entra sign-in.',
    },
    needsCredential: 'always',
    maxTemperature: 2,
    defaultApiVersion: '2024-10-21',
    generationKeys: OPENAI_FORMAT,
    sdks: ['openai', '@azure/identity'],
  },
  anthropic: {
    label: 'Anthropic',
    endpoint: { label: 'Endpoint (optional)', hint: 'Empty: api.anthropic.com.' },
    secret: { label: 'API key secret', hint: 'Sent as x-api-key.' },
    needsCredential: 'always',
    maxTemperature: 1,
    generationKeys: ['max_tokens', 'top_p', 'top_k', 'stop_sequences'],
    sdks: ['@anthropic-ai/sdk'],
  },
  huggingface: {
    label: 'Hugging Face',
    endpoint: {
      label: 'Inference Endpoint (optional)',
      hint: 'A dedicated Inference Endpoint or TGI server; empty: Inference Providers for the repository named by this model.',
    },
    secret: { label: 'Hugging Face token secret', hint: 'Sent as a bearer token.' },
    needsCredential: 'never',
    maxTemperature: 2,
    generationKeys: OPENAI_FORMAT,
    // The Inference Providers route of a hub model (default: the server-side auto-router).
    routeKey: 'inference_provider',
    sdks: ['@huggingface/inference'],
  },
  custom: {
    label: 'Custom handler',
    endpoint: { label: 'Endpoint', hint: 'Handed to the custom handler.' },
    secret: { label: 'Credential secret (optional)', hint: 'Handed to the custom handler.' },
    needsCredential: 'never',
    maxTemperature: 2,
    generationKeys: [],
    // The handler (optional when only one is registered).
    routeKey: 'custom_provider',
    sdks: [],
  },
} satisfies Record<Schemas['LLMProvider'], ProviderKind>;

/** One kind's description, read as a `ProviderKind` whatever the kind. */
export const providerKind = (provider: Schemas['LLMProvider']): ProviderKind => PROVIDER_KINDS[provider];

/** The `model_config` keys that choose a route, every kind's: changing one moves the secret as changing the endpoint does. */
export const ROUTE_KEYS: readonly string[] = Object.values<ProviderKind>(PROVIDER_KINDS).flatMap((kind) =>
  kind.routeKey ? [kind.routeKey] : [],
);
