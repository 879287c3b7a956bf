import { isDeepStrictEqual } from 'node:util';
import type { Schemas } from '../api/openapi-types.js';
import { ValidationError } from '../kernel/errors.js';
import { steeringEntries } from './model-config-keys.js';
import { ROUTE_KEYS } from './provider-kinds.js';
import {
  admitSecretCarrier,
  destinationChanged,
  keepSuperuserFields,
  refused,
  type SecretCarrier,
  type TrustedDestination,
  type WriteContext,
} from './record-write-rules.js';
import type { BaseRecord } from './record-collection.port.js';
import type { Filters, RecordKind } from './record-service.js';
import type { KindContext } from './records.js';
import { textMatches } from './text-match.js';

/** Generation options are small; every process keeps every model in memory. */
const MODEL_CONFIG_MAX_CHARS = 16_384;

/** The provider kinds, as the OpenAPI document lists them (LLMProvider). */
export type LlmProvider = Schemas['LLMProvider'];

/** The writable fields, as the OpenAPI document's LLMModelInput has them; the budget and prices may be absent on older records. */
type ModelExtras = 'daily_token_budget' | 'price_per_million_input_tokens' | 'price_per_million_output_tokens';
export type LlmModelFields = Required<Omit<Schemas['LLMModelInput'], 'id' | ModelExtras>> & Pick<Schemas['LLMModelInput'], ModelExtras>;

export type LlmModelRecord = BaseRecord & Omit<LlmModelFields, 'is_default'> & TrustedDestination;

/** The fields older records may lack, which a view always shows (null when unset). */
type ModelLimits = 'daily_token_budget' | 'price_per_million_input_tokens' | 'price_per_million_output_tokens';

export type LlmModelView = BaseRecord &
  Omit<LlmModelFields, 'model_secret_key' | ModelLimits> &
  Required<Pick<LlmModelFields, ModelLimits>> & { display: string; model_secret_key?: string };

/**
 * The provider and its endpoint decide where the model's secret (and every message) goes, and so do
 * the `model_config` keys that pick a Hugging Face route or a custom handler.
 */
const secretCarrier: SecretCarrier<LlmModelRecord> = {
  label: 'LLM model',
  secretField: 'model_secret_key',
  destinationFields: ['provider', 'hosted_endpoint', 'model_config'],
  destination: (record) => [record.provider, record.hosted_endpoint, ...ROUTE_KEYS.map((key) => record.model_config[key])],
  // Without hosted_endpoint a configured default applies (OLLAMA_HOST, the provider's public API).
  url: (record) => (record.hosted_endpoint ? { field: 'hosted_endpoint', value: record.hosted_endpoint } : null),
};

/**
 * Chats name their model by name: renaming a model a superuser set up, or deleting it, frees that
 * name for a model of anyone's choosing, which those chats would then follow.
 */
const NAME_TAKEN_OVER =
  'Only a superuser may rename or delete an LLM model whose destination a superuser set: chats that name it would follow whatever model takes the name.';

/**
 * A model reads every message and tool result of the chats that use it, with no approval between:
 * where it sends them is superuser business once a superuser chose it. Every chat that names no
 * model goes to the default, so making a model the default, or changing where the default sends its
 * requests, is too; and a model a superuser set up is named by chats (a superuser's among them) that
 * would follow it. Giving the flag up is not, nor changing anything else.
 */
function admitDestination(write: WriteContext<LlmModelRecord>): void {
  const { actor, flagged, previous } = write;
  if (actor.superuser) return;
  if (flagged.after && !flagged.before)
    throw refused('is_default: only a superuser may make an LLM model the default: every chat that names no model goes to it.');
  if (!previous) return;
  if (destinationChanged(secretCarrier, write)) {
    if (flagged.after) {
      throw refused(
        'Only a superuser may change where the default LLM model sends requests (provider, hosted_endpoint): every chat that names no model goes there.',
      );
    }
    if (previous.destination_trusted) {
      throw refused(
        'Only a superuser may change where an LLM model a superuser set up sends requests (provider, hosted_endpoint, its model_config route): every chat that names it would follow.',
      );
    }
  }
  if (previous.destination_trusted && previous.name !== write.next.name) throw refused(`name: ${NAME_TAKEN_OVER}`);
}

/**
 * The `model_config` keys of a model a superuser set up that steer it (a system prompt, a
 * destination, headers, tools: whatever is not a generation knob) follow `system_prompt`: a writer
 * short of superuser who sends another value, or a new one, is refused; one who leaves such a key
 * out keeps it, so a replace never drops it. The generation knobs stay open.
 */
function keepSteeringConfig(write: Omit<WriteContext<LlmModelRecord>, 'flagged'>): LlmModelRecord {
  const { next, previous, sent, actor } = write;
  if (actor.superuser || !previous?.destination_trusted) return next;
  const kept = steeringEntries(previous.provider, previous.model_config);
  const wanted = sent.includes('model_config') ? steeringEntries(next.provider, next.model_config) : {};
  const changed = Object.keys(wanted).filter((key) => !isDeepStrictEqual(wanted[key], kept[key]));
  if (changed.length > 0) {
    throw refused(
      `model_config: only a superuser may set ${changed.join(', ')} on an LLM model a superuser set up: beyond generation options (max_tokens, top_p, ...), a key may set the system prompt, the destination, headers or tools of every chat on the model.`,
    );
  }
  return { ...next, model_config: { ...next.model_config, ...kept } };
}

/**
 * A model's `daily_token_budget` caps what its turns spend; on a model a superuser set up, or the
 * default (which only a superuser chooses), only a superuser raises it or takes it away. Lowering
 * it, or setting one where there was none, only narrows. A write that leaves it out keeps it.
 */
function keepBudget(write: WriteContext<LlmModelRecord>): LlmModelRecord {
  const { next, previous, sent, actor, flagged } = write;
  if (actor.superuser || !previous || !(previous.destination_trusted || flagged.before)) return next;
  const budget = previous.daily_token_budget ?? null;
  if (!sent.includes('daily_token_budget')) return { ...next, daily_token_budget: budget };
  const wanted = next.daily_token_budget ?? null;
  if (budget !== null && (wanted === null || wanted > budget)) {
    throw refused(
      `daily_token_budget: only a superuser may raise or remove the budget of an LLM model a superuser set up (it is ${budget}); lowering it is open.`,
    );
  }
  return next;
}

export const llmModelKind = ({ rules }: Pick<KindContext, 'rules'>): RecordKind<LlmModelRecord, LlmModelFields, LlmModelView> => ({
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
    daily_token_budget: null,
    price_per_million_input_tokens: null,
    price_per_million_output_tokens: null,
  }),
  writable: ({ id: _id, created: _created, last_updated: _updated, destination_trusted: _trusted, ...fields }, flagged) => ({
    ...fields,
    is_default: flagged,
  }),
  toRecord: async ({ is_default: _flag, ...fields }, base) => {
    if (JSON.stringify(fields.model_config).length > MODEL_CONFIG_MAX_CHARS) {
      throw ValidationError.field('model_config', `Ensure model_config has no more than ${MODEL_CONFIG_MAX_CHARS} characters as JSON.`);
    }
    return { ...base, ...fields };
  },
  admit: async (write) => {
    admitDestination(write);
    const budgeted = keepBudget(write);
    const steered = keepSteeringConfig({ ...write, next: budgeted });
    const next = keepSuperuserFields(secretCarrier.label, ['system_prompt', 'model_secret_key'], { ...write, next: steered });
    return admitSecretCarrier(secretCarrier, { ...write, next }, rules);
  },
  admitDelete: (record, actor) => {
    if (!actor.superuser && record.destination_trusted) throw refused(NAME_TAKEN_OVER);
  },
  secretsNamed: (record) => [record.model_secret_key],
  present: async (records, holder, view) =>
    records.map(({ model_secret_key, destination_trusted: _trusted, ...record }) => ({
      ...record,
      daily_token_budget: record.daily_token_budget ?? null,
      price_per_million_input_tokens: record.price_per_million_input_tokens ?? null,
      price_per_million_output_tokens: record.price_per_million_output_tokens ?? null,
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
