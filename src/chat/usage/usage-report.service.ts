import type { Schemas } from '../../api/openapi-types.js';
import { isCalendarDate } from '../../kernel/calendar-date.js';
import { PermissionDeniedError, ValidationError } from '../../kernel/errors.js';
import type { LlmModelRecord, LlmModelView } from '../../records/llm-model.js';
import type { RecordPage } from '../../records/record-collection.port.js';
import type { ListQuery } from '../../records/record-service.js';
import type { TokenBudget } from './token-budget.js';
import { sumFigures } from './usage-figures.js';
import type { TokenCount, TokenUsageStore, UsageRow } from './token-usage.port.js';
import { daysBefore, utcDay } from './utc-days.js';

/** Days a report covers when it names no `since`. */
const DEFAULT_DAYS = 30;
/** The most models whose budgets a report reads (as many as a chat user is offered). */
const BUDGETED_MODELS_MAX = 1_000;

type Prices = Pick<LlmModelRecord, 'price_per_million_input_tokens' | 'price_per_million_output_tokens'>;

export interface UsageReportDependencies {
  /** The usage store; a report spans at most its retention. */
  usage: Pick<TokenUsageStore, 'list' | 'retentionDays'>;
  /** The model records: their prices (a deleted model's usage shows no cost) and their own budgets. */
  models: {
    getByName(name: string): Promise<Prices | null>;
    list(query: ListQuery): Promise<RecordPage<Pick<LlmModelView, 'name' | 'daily_token_budget'>>>;
  };
  /** The daily budgets; without them a report says nothing of budgets. */
  budget?: Pick<TokenBudget, 'standing'>;
  now?: () => number;
}

/** Who asks, and whether they may see every user's usage (ai_ops.view_usage). */
export interface UsageReader {
  userId: string;
  username: string;
  seesEveryone: boolean;
}

export interface UsageFilter {
  user?: string;
  model?: string;
  since?: string;
  until?: string;
}

/** Cost of `tokens` at `prices`, or null when a price is unknown. */
function costOf(tokens: TokenCount, prices: Prices | null): number | null {
  const input = prices?.price_per_million_input_tokens;
  const output = prices?.price_per_million_output_tokens;
  if (input == null || output == null) return null;
  return (tokens.input_tokens * input + tokens.output_tokens * output) / 1_000_000;
}

/** Token usage as the API and the CLI show it: per UTC day, its users' and models' rows with their cost, and the total. */
export class UsageReportService {
  private readonly now: () => number;

  constructor(private readonly deps: UsageReportDependencies) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * A reader without ai_ops.view_usage sees their own usage only (naming someone else is refused);
   * every reader sees what is left of their own budgets.
   */
  async report(reader: UsageReader, filter: UsageFilter): Promise<Schemas['Usage']> {
    if (!reader.seesEveryone && filter.user !== undefined && filter.user !== reader.userId && filter.user !== reader.username)
      throw new PermissionDeniedError("You may see only your own usage (another user's needs ai_ops.view_usage).");
    const user = reader.seesEveryone ? filter.user : reader.userId;
    const [report, budgets] = await Promise.all([this.query({ ...filter, ...(user === undefined ? {} : { user }) }), this.budgets(reader)]);
    return { ...report, ...(budgets ? { budgets } : {}) };
  }

  private async budgets(reader: UsageReader): Promise<Schemas['UsageBudget'][] | undefined> {
    if (!this.deps.budget) return undefined;
    const { results } = await this.deps.models.list({ limit: BUDGETED_MODELS_MAX, offset: 0, filters: {} });
    return this.deps.budget.standing(reader.userId, results);
  }

  /**
   * Every user's usage that matches (the CLI, which reads Redis as the operator). The days are
   * calendar days and span at most USAGE_RETENTION_DAYS: each day of the range is read, and a
   * range of millennia once took the process down.
   */
  async query(filter: UsageFilter): Promise<Schemas['Usage']> {
    for (const name of ['since', 'until'] as const) {
      const day = filter[name];
      if (day !== undefined && !isCalendarDate(day)) throw ValidationError.field(name, `${name} (${day}) is not a date (YYYY-MM-DD).`);
    }
    const { retentionDays } = this.deps.usage;
    const until = filter.until ?? utcDay(this.now());
    const since = filter.since ?? daysBefore(until, Math.min(DEFAULT_DAYS - 1, retentionDays));
    if (since > until) throw ValidationError.field('since', `since (${since}) is after until (${until}).`);
    if (since < daysBefore(until, retentionDays))
      throw ValidationError.field(
        'since',
        `since (${since}) is more than ${retentionDays} days before until (${until}): a report reaches back at most USAGE_RETENTION_DAYS (${retentionDays}) days, as long as usage is kept.`,
      );
    const rows = await this.deps.usage.list({
      since,
      until,
      ...(filter.user ? { user: filter.user } : {}),
      ...(filter.model ? { model: filter.model } : {}),
    });
    const prices = new Map<string, Prices | null>();
    for (const model of new Set(rows.map((row) => row.model))) prices.set(model, await this.deps.models.getByName(model));
    const byDay = new Map<string, Schemas['UsageRow'][]>();
    for (const { day, ...row } of rows satisfies UsageRow[]) {
      const priced = { ...row, cost: costOf(row, prices.get(row.model) ?? null) };
      byDay.set(day, [...(byDay.get(day) ?? []), priced]);
    }
    const days = [...byDay].map(([day, dayRows]) => ({ day, ...sumFigures(dayRows), rows: dayRows }));
    return { since, until, days, total: sumFigures(days) };
  }
}
