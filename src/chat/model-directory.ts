import type { LlmModelRecord, LlmModelView } from '../records/llm-model.js';
import type { RecordPage } from '../records/record-collection.port.js';
import type { ListQuery } from '../records/record-service.js';

/** A model as offered to chat users: what to call it and whose it is, nothing about where or how. */
export type ChatModel = Pick<LlmModelView, 'name' | 'provider' | 'description' | 'is_default'>;

/** The most models a chat user is offered. */
const CHAT_MODELS_MAX = 1_000;

/** What a turn needs of its model when it is asked: which it is, its user's daily budget on it, and what bounds a step's tokens. */
export type TurnModel = Pick<LlmModelRecord, 'id' | 'name' | 'daily_token_budget' | 'model_config' | 'system_prompt'>;

/** Port: finds the model a turn runs on. */
export interface ModelDirectory {
  byName(name: string): Promise<TurnModel | null>;
  defaultModel(): Promise<TurnModel | null>;
  /** Every model a turn may name, the default first. */
  all(): Promise<ChatModel[]>;
}

/** The model directory over the LLM model records (the default model is listed first). */
export function modelDirectory(models: {
  getByName(name: string): Promise<LlmModelRecord | null>;
  list(query: ListQuery): Promise<RecordPage<LlmModelView>>;
}): ModelDirectory {
  return {
    byName: (name) => models.getByName(name),
    async defaultModel() {
      const [first] = (await models.list({ limit: 1, offset: 0, filters: {} })).results;
      return first?.is_default ? first : null;
    },
    async all() {
      const { results } = await models.list({ limit: CHAT_MODELS_MAX, offset: 0, filters: {} });
      return results.map(({ name, provider, description, is_default }) => ({ name, provider, description, is_default }));
    },
  };
}
