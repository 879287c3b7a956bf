import type { Schemas } from '../../api/openapi-types.js';
import { RateLimitedError } from '../../kernel/errors.js';
import type { LlmModelRecord } from '../../records/llm-model.js';
import type { Committed, HoldLimits, TokenUsageStore } from './token-usage.port.js';
import { endOfUtcDay, utcDay, waitInWords } from './utc-days.js';

/** Characters a token stands for at least, in the prompt estimate of a step (text runs about four; code and other scripts fewer). */
const CHARS_PER_TOKEN = 3;
/** A step's answer, in tokens, when the model's `model_config` sets no `max_tokens`. */
const DEFAULT_STEP_OUTPUT_TOKENS = 4_096;

export interface TokenBudgetOptions {
  usage: Pick<TokenUsageStore, 'spent' | 'hold' | 'release'>;
  /** CHAT_TOKEN_BUDGET_PER_DAY: a user's tokens per UTC day over every model; 0: none. */
  perUserPerDay: number;
  /** How long a turn's hold lasts should the turn never settle (its worker gone): a turn's time limit, with its wait. */
  holdMs: number;
  now?: () => number;
}

type BudgetedModel = Pick<LlmModelRecord, 'name' | 'daily_token_budget'>;
/** A model a step runs on: its budget, and what bounds its answer. */
type SteppingModel = BudgetedModel & Pick<LlmModelRecord, 'model_config'>;

/** A turn's next step: the turn, and the characters its prompt holds (as far as they are known). */
export interface TurnStep {
  turnId: string;
  promptChars: number;
}

/**
 * Daily token budgets: a user's tokens per UTC day over every model (CHAT_TOKEN_BUDGET_PER_DAY)
 * and, on a model with a `daily_token_budget`, the user's tokens on that model too (a model's budget
 * narrows the global one, never lifts it). Counted in the shared usage store, so every API instance
 * and worker sees the same figures. A turn holds its next step's worst case against the budgets in
 * the same atomic step as the check, and keeps a hold until it ends: turns admitted at once see each
 * other's holds, so together they spend at most the budget and one step.
 */
export class TokenBudget {
  private readonly now: () => number;

  constructor(private readonly options: TokenBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Holds the step's worst case, or refuses the turn (429, Retry-After until UTC midnight) when its user's budgets are spent or held. */
  async admit(userId: string, model: SteppingModel, step: TurnStep): Promise<void> {
    const refused = await this.hold(userId, model, step);
    if (!refused) return;
    const now = this.now();
    const seconds = Math.max(1, Math.ceil((endOfUtcDay(now) - now) / 1_000));
    throw new RateLimitedError(
      `${this.describe(model, refused)} is spent, or held by your turns running now; it resets at 00:00 UTC, in ${waitInWords(seconds)}.`,
      seconds,
    );
  }

  /** After a step: holds the turn's next one, or answers the message it stops with when the budgets leave no room for it. */
  async nextStep(userId: string, model: SteppingModel, step: TurnStep): Promise<string | undefined> {
    const refused = await this.hold(userId, model, step);
    return (
      refused &&
      `${this.describe(model, refused)} was reached during this turn, so it stopped after its current step. It resets at 00:00 UTC.`
    );
  }

  /** The turn is over: its hold goes (none was placed when no budget applies). */
  async release(userId: string, model: BudgetedModel, turnId: string): Promise<void> {
    if (this.unlimited(model)) return;
    await this.options.usage.release(userId, turnId);
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

  /** Places the step's hold; answers the limit that left no room for it (undefined: held, or no budget applies). */
  private async hold(userId: string, model: SteppingModel, step: TurnStep): Promise<keyof HoldLimits | undefined> {
    if (this.unlimited(model)) return undefined;
    const limits = this.limits(model);
    const now = this.now();
    const held = await this.options.usage.hold(
      { id: step.turnId, userId, model: model.name, tokens: stepTokens(model, step.promptChars), expiresAt: now + this.options.holdMs },
      limits,
      utcDay(now),
    );
    return held.placed ? undefined : spentLimit(held, limits);
  }

  /** Both budgets apply: the one over every model and the model's own. */
  private limits(model: Pick<BudgetedModel, 'daily_token_budget'>): HoldLimits {
    return { total: this.options.perUserPerDay, onModel: model.daily_token_budget ?? 0 };
  }

  private unlimited(model: BudgetedModel): boolean {
    const { total, onModel } = this.limits(model);
    return total === 0 && onModel === 0;
  }

  private describe(model: BudgetedModel, limit: keyof HoldLimits): string {
    return limit === 'onModel'
      ? `Your daily token budget on model '${model.name}' (${model.daily_token_budget} tokens)`
      : `Your daily token budget (${this.options.perUserPerDay} tokens)`;
  }
}

/** The limit that what was spent and held reaches: the model's own first, since it is the narrower one named. */
function spentLimit({ spent, held }: Committed, limits: HoldLimits): keyof HoldLimits {
  return limits.onModel > 0 && spent.onModel + held.onModel >= limits.onModel ? 'onModel' : 'total';
}

/** A step's worst case: its prompt, estimated from its characters, and the longest answer the model may give. */
function stepTokens(model: Pick<LlmModelRecord, 'model_config'>, promptChars: number): number {
  const maxTokens = model.model_config['max_tokens'];
  const output = typeof maxTokens === 'number' && maxTokens > 0 ? maxTokens : DEFAULT_STEP_OUTPUT_TOKENS;
  return Math.ceil(promptChars / CHARS_PER_TOKEN) + output;
}
