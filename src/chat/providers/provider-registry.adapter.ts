import type { OutboundFetch } from '../../kernel/http/outbound-fetch.js';
import type { Metrics } from '../../kernel/metrics/metrics.js';
import type { LlmProvider } from '../../records/llm-model.js';
import { providerKind } from '../../records/provider-kinds.js';
import { anthropicProvider } from './anthropic.provider.js';
import { azureOpenAiProviderFactory, type AzureCredentialFactory } from './azure-openai.provider.js';
import { customProviderFactory, type CustomProviderDefinition } from './custom.provider.js';
import { huggingFaceProvider } from './huggingface.provider.js';
import { ollamaProviderFactory } from './ollama.provider.js';
import { openAiProvider } from './openai.provider.js';
import {
  ProviderError,
  type ChatProvider,
  type ProviderCallPolicy,
  type ProviderFactory,
  type ProviderFailure,
  type ProviderTarget,
} from './provider.port.js';

export interface ProviderRegistryOptions {
  /** Where `ollama` models without hosted_endpoint go (OLLAMA_HOST). */
  ollamaHost: string;
  /** Handlers loaded from CUSTOM_PROVIDERS. */
  custom: Map<string, CustomProviderDefinition>;
  /** How a directory identity becomes an Entra credential (tests inject a fake). */
  azureCredential?: AzureCredentialFactory;
  /** Told the duration and outcome of every provider call (for metrics). */
  observer?: ProviderObserver;
  /** The transport of every call, by whether the endpoint is trusted (the outbound policy). */
  outbound: OutboundFetch;
}

export interface ProviderObserver {
  /** `failure` is set when the call failed: its kind (`auth`, `timeout`, ...) or `other`. */
  called(provider: LlmProvider, seconds: number, failure?: ProviderFailure | 'other'): void;
}

/** Provider calls into `aiops_provider_request_duration_seconds` and `aiops_provider_errors_total`. */
export function providerObserver(metrics: Metrics): ProviderObserver {
  return {
    called(provider, seconds, failure) {
      metrics.providerLatency.observe({ provider, outcome: failure ? 'error' : 'ok' }, seconds);
      if (failure) metrics.providerErrors.inc({ provider, kind: failure });
    },
  };
}

/** Times every call of `provider` and reports it to `observer`. */
function observed(provider: ChatProvider, kind: LlmProvider, observer: ProviderObserver): ChatProvider {
  return {
    async chat(request) {
      const started = performance.now();
      try {
        const reply = await provider.chat(request);
        observer.called(kind, (performance.now() - started) / 1_000);
        return reply;
      } catch (error) {
        observer.called(kind, (performance.now() - started) / 1_000, error instanceof ProviderError ? error.failure : 'other');
        throw error;
      }
    },
  };
}

/**
 * Anything a provider throws that is not already a ProviderError (an SDK choking on a malformed
 * answer, a parser meeting a missing field) is the provider's answer being unreadable: a 502 for
 * the caller, not an internal error. A stopped call stays what it was.
 */
function unreadableAnswers(provider: ChatProvider): ChatProvider {
  return {
    async chat(request) {
      try {
        return await provider.chat(request);
      } catch (error) {
        if (error instanceof ProviderError || request.signal?.aborted) throw error;
        throw new ProviderError('invalid_response', 'the answer is not what the provider API promises', undefined, undefined, {
          cause: error,
        });
      }
    },
  };
}

/** The temperature a kind's API takes at most: higher is sent as that. */
function temperatureCapped(provider: ChatProvider, maxTemperature: number): ChatProvider {
  return {
    chat: (request) => provider.chat({ ...request, temperature: Math.min(request.temperature, maxTemperature) }),
  };
}

/**
 * One handler per provider kind, behind the ChatProvider interface: the adapter a chat turn gets as
 * its `providers` port, choosing among the provider adapters. Built once per worker process. What a
 * kind needs besides its adapter (a credential, a temperature limit, a default API version) is its
 * description in PROVIDER_KINDS (src/records/provider-kinds.ts).
 */
export class ProviderRegistry {
  private readonly factories: Record<LlmProvider, ProviderFactory>;
  private readonly observer?: ProviderObserver;
  private readonly outbound: OutboundFetch;

  constructor(options: ProviderRegistryOptions) {
    this.observer = options.observer;
    this.outbound = options.outbound;
    this.factories = {
      ollama: ollamaProviderFactory(options.ollamaHost),
      openai: openAiProvider,
      azure_ai: azureOpenAiProviderFactory(options.azureCredential),
      anthropic: anthropicProvider,
      huggingface: huggingFaceProvider,
      custom: customProviderFactory(options.custom),
    };
  }

  create(target: ProviderTarget, policy: ProviderCallPolicy): ChatProvider {
    const kind = providerKind(target.provider);
    const needsCredential = kind.needsCredential === 'always' || (kind.needsCredential === 'without-endpoint' && !target.hostedEndpoint);
    if (needsCredential && !target.credential) {
      throw new ProviderError(
        'configuration',
        `${target.provider} models need a credential: set model_secret_key to the name of a secret holding the API key`,
      );
    }
    const completed = { ...target, apiVersion: target.apiVersion || (kind.defaultApiVersion ?? '') };
    const provider = unreadableAnswers(
      temperatureCapped(
        this.factories[target.provider](completed, { ...policy, fetch: this.outbound(target.trusted === true) }),
        kind.maxTemperature,
      ),
    );
    return this.observer ? observed(provider, target.provider, this.observer) : provider;
  }
}
