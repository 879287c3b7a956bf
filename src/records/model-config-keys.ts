import type { Schemas } from '../api/openapi-types.js';
import { providerKind } from './provider-kinds.js';

/*
 * Which `model_config` keys only tune generation: each provider kind's `generationKeys`
 * (provider-kinds.ts). Providers spread `model_config` into the request body (Ollama into its
 * options, a custom handler reads all of it), so any other key may set a system prompt (`system`,
 * `messages`, `instructions`, `template`), a destination or headers (`base_url`, `extra_headers`,
 * `mcp_servers`), or tools (`tools`, `tool_choice`, `functions`).
 */

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * The entries of a `model_config` that steer the model rather than tune it: every key the provider's
 * allow-list lacks, and an allowed key holding anything but a scalar or a list of scalars (a nested
 * object may carry any of the keys above).
 */
export function steeringEntries(provider: Schemas['LLMProvider'], config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const allowed = providerKind(provider).generationKeys;
  return Object.fromEntries(
    Object.entries(config).filter(
      ([key, value]) => !allowed.includes(key) || !(isScalar(value) || (Array.isArray(value) && value.every(isScalar))),
    ),
  );
}
