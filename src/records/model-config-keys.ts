import type { LlmProvider } from './llm-model.js';

/*
 * Which `model_config` keys only tune generation. Providers spread `model_config` into the request
 * body (Ollama into its options, a custom handler reads all of it), so any other key may set a
 * system prompt (`system`, `messages`, `instructions`, `template`), a destination or headers
 * (`base_url`, `extra_headers`, `mcp_servers`), or tools (`tools`, `tool_choice`, `functions`):
 * an allow-list, because a deny-list misses the next field a provider adds.
 */

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

/** Each provider's keys that only tune generation; a custom handler's keys mean what the handler makes of them, so none. */
const GENERATION_KEYS: Record<LlmProvider, ReadonlySet<string>> = {
  anthropic: new Set(['max_tokens', 'top_p', 'top_k', 'stop_sequences']),
  openai: new Set(OPENAI_FORMAT),
  azure_ai: new Set(OPENAI_FORMAT),
  huggingface: new Set(OPENAI_FORMAT),
  ollama: new Set([
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
  ]),
  custom: new Set(),
};

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * The entries of a `model_config` that steer the model rather than tune it: every key the provider's
 * allow-list lacks, and an allowed key holding anything but a scalar or a list of scalars (a nested
 * object may carry any of the keys above).
 */
export function steeringEntries(provider: LlmProvider, config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const allowed = GENERATION_KEYS[provider];
  return Object.fromEntries(
    Object.entries(config).filter(
      ([key, value]) => !allowed.has(key) || !(isScalar(value) || (Array.isArray(value) && value.every(isScalar))),
    ),
  );
}
