import type { Metrics } from '../../kernel/metrics/metrics.js';
import type { TokenUsageStore } from './token-usage.port.js';

/** The usage store, with every call's tokens also counted in `aiops_provider_tokens_total`. */
export function countedUsage(store: TokenUsageStore, metrics: Pick<Metrics, 'providerTokens'>): TokenUsageStore {
  return {
    retentionDays: store.retentionDays,
    spent: (userId, day, model) => store.spent(userId, day, model),
    list: (query) => store.list(query),
    hold: (hold, limits, day) => store.hold(hold, limits, day),
    release: (userId, id) => store.release(userId, id),
    async add(entry) {
      const spent = await store.add(entry);
      const labels = { model: entry.model, provider: entry.provider };
      metrics.providerTokens.inc({ ...labels, direction: 'input' }, entry.tokens.input_tokens);
      metrics.providerTokens.inc({ ...labels, direction: 'output' }, entry.tokens.output_tokens);
      return spent;
    },
  };
}
