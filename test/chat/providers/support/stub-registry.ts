import { fileURLToPath } from 'node:url';
import { loadCustomProviders } from '../../../../src/chat/providers/custom.provider.js';
import { ProviderRegistry } from '../../../../src/chat/providers/provider-registry.adapter.js';
import { loopbackOutbound } from '../../../support/outbound.js';
import { startProviderStub, type ProviderStub } from '../../../support/provider-stubs.js';

/** A protocol stub that wants `apiKey`, and a registry of every provider (the echo custom one too) allowed to reach it. */
export async function startStubRegistry(apiKey: string): Promise<{ stub: ProviderStub; registry: ProviderRegistry }> {
  const stub = await startProviderStub({ apiKey });
  const custom = await loadCustomProviders([fileURLToPath(new URL('../fixtures/echo-provider.mjs', import.meta.url))]);
  return { stub, registry: new ProviderRegistry({ ollamaHost: 'http://127.0.0.1:9', custom, outbound: loopbackOutbound() }) };
}
