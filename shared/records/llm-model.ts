import { admitSecretCarrier, type SecretCarrier, type TrustedDestination, type WriteRules } from '../security/record-write-rules.js';
import type { BaseRecord } from './record-collection.port.js';
import type { Filters, RecordKind } from './record-service.js';
import { textMatches } from './text-match.js';

export const LLM_PROVIDERS = ['ollama', 'openai', 'azure_ai', 'anthropic', 'huggingface', 'custom'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export interface LlmModelFields {
  name: string;
  description: string;
  provider: LlmProvider;
  /** Name of the secret holding the provider credential; resolved only in workers. */
  model_secret_key: string;
  hosted_endpoint: string;
  api_version: string;
  is_default: boolean;
  temperature: number;
  model_config: Record<string, unknown>;
  system_prompt: string;
}

export type LlmModelRecord = BaseRecord & Omit<LlmModelFields, 'is_default'> & TrustedDestination;

export type LlmModelView = BaseRecord & Omit<LlmModelFields, 'model_secret_key'> & { display: string; model_secret_key?: string };

/** The provider and its endpoint decide where the model's secret (and every message) goes. */
const secretCarrier: SecretCarrier<LlmModelRecord> = {
  label: 'LLM model',
  secretField: 'model_secret_key',
  destinationFields: ['provider', 'hosted_endpoint'],
  // Without hosted_endpoint a configured default applies (OLLAMA_HOST, the provider's public API).
  url: (record) => (record.hosted_endpoint ? { field: 'hosted_endpoint', value: record.hosted_endpoint } : null),
};

export const llmModelKind = (rules: WriteRules): RecordKind<LlmModelRecord, LlmModelFields, LlmModelView> => ({
  label: 'LLM model',
  flagField: 'is_default',
  defaults: () => ({
    description: '',
    provider: 'ollama',
    model_secret_key: '',
    hosted_endpoint: '',
    api_version: '',
    is_default: false,
    temperature: 0,
    model_config: {},
    system_prompt: '',
  }),
  writable: ({ id: _id, created: _created, last_updated: _updated, destination_trusted: _trusted, ...fields }, flagged) => ({ ...fields, is_default: flagged }),
  toRecord: async ({ is_default: _flag, ...fields }, base) => ({ ...base, ...fields }),
  admit: (write) => admitSecretCarrier(secretCarrier, write, rules),
  present: async (records, holder, view) =>
    records.map(({ model_secret_key, destination_trusted: _trusted, ...record }) => ({
      ...record,
      display: record.name,
      is_default: record.id === holder,
      // The secret's name tells an admin which credential is used; lists omit it all the same.
      ...(view === 'detail' ? { model_secret_key } : {}),
    })),
  filter: async (filters: Filters) => (record, flagged) =>
    (filters.name === undefined || record.name === filters.name) &&
    (filters.provider === undefined || record.provider === filters.provider) &&
    (filters.is_default === undefined || flagged === filters.is_default) &&
    textMatches(filters.q, record.name, record.description),
});
