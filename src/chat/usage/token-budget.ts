import type { Schemas } from '../../api/openapi-types.js';
import { RateLimitedError } from '../../kernel/errors.js';
import type { LlmModelRecord } from '../../records/llm-model.js';
import type { SpentToday, TokenUsageStore } from './token-usage.port.js';
import { endOfUtcDay, utcDay } from './utc-days.js';

export interface TokenBudgetOptions {
  usage: Pick<TokenUsageStore, 'spent'>;
  /** CHAT_TOKEN_BUDGET_PER_DAY: a user's tokens per UTC day over every model; 0: none. */
  perUserPerDay: number;
  now?: () => number;
}

type BudgetedModel = Pick<LlmModelRecord, 'name' | 'daily_token_budget'>;

/**
 * Daily token budgets: a user's tokens per UTC day over every model (CHAT_TOKEN_BUDGET_PER_DAY),
 * or, for turns on a model with a `daily_token_budget`, the user's tokens on that model instead.
 * Counted in the shared usage store, so every API instance and worker sees the same figures.
 */
export class TokenBudget {
  private readonly now: () => number;

  constructor(private readonly options: TokenBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Refuses a turn (429, Retry-After until UTC midnight) when its user's budget for the model is spent. */
  async admit(userId: string, model: BudgetedModel): Promise<void> {
    if (this.limit(model) === 0) return;
    const now = this.now();
    const spent = await this.options.usage.spent(userId, utcDay(now), model.name);
    if (!this.exhausted(spent, model)) return;
    const seconds = Math.max(1, Math.ceil((endOfUtcDay(now) - now) / 1_000));
    throw new RateLimitedError(`${this.describe(model)} is spent; it resets at 00:00 UTC, in ${seconds} s.`, seconds);
  }

  /**
   * What is left today of each budget a user's turns meet: the one over every model (when set) and
   * each model's own, spent counted as `admit` counts it.
   */
  async standing(userId: string, models: BudgetedModel[]): Promise<Schemas['UsageBudget'][]> {
    const day = utcDay(this.now());
    const standing = (model: string | null, limit: number, spent: number) => ({ model, limit, spent, left: Math.max(0, limit - spent) });
    const own = await Promise.all(
      models.flatMap(({ name, daily_token_budget: limit }) =>
        limit ? [this.options.usage.spent(userId, day, name).then((spent) => standing(name, limit, spent.onModel))] : [],
      ),
    );
    if (this.options.perUserPerDay === 0) return own;
    const { total } = await this.options.usage.spent(userId, day);
    return [standing(null, this.options.perUserPerDay, total), ...own];
  }

  /** Whether what a user spent today leaves nothing of their budget on `model`. */
  exhausted(spent: SpentToday, model: BudgetedModel): boolean {
    const limit = this.limit(model);
    if (limit === 0) return false;
    return (model.daily_token_budget ? spent.onModel : spent.total) >= limit;
  }

  /** What a turn that spent the rest of its user's budget answers after its last step. */
  stopMessage(model: BudgetedModel): string {
    return `${this.describe(model)} was reached during this turn, so it stopped after its current step. It resets at 00:00 UTC.`;
  }

  private limit(model: BudgetedModel): number {
    return model.daily_token_budget || this.options.perUserPerDay;
  }

  private describe(model: BudgetedModel): string {
    return model.daily_token_budget
      ? `Your daily token budget on model '${model.name}' (${model.daily_token_budget} tokens)`
      : `Your daily token budget (${this.options.perUserPerDay} tokens)`;
  }
}
