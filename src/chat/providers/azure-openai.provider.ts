import { createHash } from 'node:crypto';
import { ClientSecretCredential, getBearerTokenProvider, type TokenCredential } from '@azure/identity';
import { AzureOpenAI } from 'openai';
import { openAiCompatibleProvider } from './openai.provider.js';
import { ProviderError, type ProviderFactory } from './provider.port.js';
import { sdkTimeoutMs } from './provider-http.adapter.js';

const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** A directory (Microsoft Entra) application identity, held as JSON in the model's secret. */
export interface AzureDirectoryIdentity {
  tenant_id: string;
  client_id: string;
  client_secret: string;
}

export type AzureCredentialFactory = (identity: AzureDirectoryIdentity) => TokenCredential;

/** `{"tenant_id", "client_id", "client_secret"}` selects directory sign-in; anything else is an API key. */
export function directoryIdentity(secret: string): AzureDirectoryIdentity | undefined {
  if (!secret.trimStart().startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(secret) as Partial<AzureDirectoryIdentity>;
    if (typeof parsed.tenant_id === 'string' && typeof parsed.client_id === 'string' && typeof parsed.client_secret === 'string') {
      return { tenant_id: parsed.tenant_id, client_id: parsed.client_id, client_secret: parsed.client_secret };
    }
  } catch {
    // not JSON: an API key that happens to start with a brace
  }
  throw new ProviderError('configuration', 'the secret looks like a directory identity but lacks tenant_id, client_id or client_secret');
}

/**
 * Azure OpenAI: `{hosted_endpoint}/openai/deployments/{model name}/chat/completions?api-version=…`,
 * with the `api-key` header, or a bearer token from Microsoft Entra when the secret holds a
 * directory identity. Token providers are kept per identity so their token cache is reused.
 */
export function azureOpenAiProviderFactory(credentialOf: AzureCredentialFactory = defaultCredential): ProviderFactory {
  const tokenProviders = new Map<string, () => Promise<string>>();
  const tokenProvider = (identity: AzureDirectoryIdentity) => {
    const key = createHash('sha256').update(JSON.stringify(identity)).digest('hex');
    let provider = tokenProviders.get(key);
    if (!provider) {
      const getToken = getBearerTokenProvider(credentialOf(identity), COGNITIVE_SERVICES_SCOPE);
      provider = () =>
        getToken().catch((error: unknown) => {
          throw new ProviderError('auth', `Microsoft Entra sign-in failed for client ${identity.client_id}`, undefined, undefined, {
            cause: error,
          });
        });
      tokenProviders.set(key, provider);
    }
    return provider;
  };

  return (target, policy) => {
    if (!target.hostedEndpoint)
      throw new ProviderError('configuration', 'azure_ai models need hosted_endpoint (https://<resource>.openai.azure.com)');
    const identity = target.credential ? directoryIdentity(target.credential) : undefined;
    const auth = identity ? { apiKey: '', azureADTokenProvider: tokenProvider(identity) } : { apiKey: target.credential ?? '' };
    return openAiCompatibleProvider(
      target,
      policy,
      (fetch) =>
        new AzureOpenAI({
          ...auth,
          baseURL: `${target.hostedEndpoint.replace(/\/+$/, '')}/openai`,
          apiVersion: target.apiVersion,
          deployment: target.model,
          maxRetries: 0,
          timeout: sdkTimeoutMs(policy),
          fetch,
        }),
    );
  };
}

function defaultCredential(identity: AzureDirectoryIdentity): TokenCredential {
  return new ClientSecretCredential(identity.tenant_id, identity.client_id, identity.client_secret);
}
