import { Access } from './access.js';
import { errorMessage, type Api } from './api.js';
import { byId, el, say } from './dom.js';
import { costPhrase, daysBetween, tokenCount, usagePath, type Usage, type UsageBudget, type UsageFigures } from './usage.js';

const NONE: UsageFigures = { input_tokens: 0, output_tokens: 0, cost: 0 };

/** The budget a turn on `model` meets first: of the model's own and the one over every model (both apply), the one with less left. */
function budgetFor(budgets: UsageBudget[], model: string): UsageBudget | undefined {
  const met = budgets.filter((budget) => budget.model === null || (model !== '' && budget.model === model));
  return met.reduce<UsageBudget | undefined>((least, budget) => (least && least.left <= budget.left ? least : budget), undefined);
}

/**
 * The chat page's "Your usage": the signed-in user's tokens today and over the API's default period
 * (the last 30 UTC days), with their cost, and what is left of the daily budget a turn on the chosen
 * model meets. Read again after every turn; the budget follows the model picker.
 */
export class OwnUsageView {
  private readonly figures = byId('own-usage-figures', HTMLDListElement);
  private readonly note = byId('own-usage-note', HTMLElement);
  private readonly error = byId('own-usage-error', HTMLElement);
  /** The user's name: a token that may see everyone's usage is narrowed to its own. */
  private user: string | null = null;
  private report: Usage | null = null;
  private model = '';

  constructor(private readonly api: Api) {}

  async start(): Promise<void> {
    try {
      this.user = (await Access.of(this.api)).token.user;
    } catch (failure) {
      say(this.error, `Your usage could not be loaded: ${errorMessage(failure)}`);
      return;
    }
    await this.refresh();
  }

  /** Reads the user's usage again (after a turn). */
  async refresh(): Promise<void> {
    if (this.user === null) return;
    try {
      this.report = await this.api.get<Usage>(usagePath({ user: this.user }));
      say(this.error, '');
    } catch (failure) {
      this.report = null;
      say(this.error, `Your usage could not be loaded: ${errorMessage(failure)}`);
    }
    this.render();
  }

  /** Shows the budget a turn on `model` meets ('': the default model). */
  showBudgetFor(model: string): void {
    this.model = model;
    this.render();
  }

  private render(): void {
    const report = this.report;
    if (!report) {
      this.figures.replaceChildren();
      say(this.note, '');
      return;
    }
    const today = report.days.find((day) => day.day === report.until) ?? NONE;
    const periodDays = daysBetween(report.since, report.until).length;
    const entry = (term: string, figures: UsageFigures) => [
      el('dt', {}, term),
      el(
        'dd',
        {},
        `${tokenCount(figures.input_tokens + figures.output_tokens)} tokens`,
        el(
          'span',
          { class: 'cell-note' },
          `${tokenCount(figures.input_tokens)} in, ${tokenCount(figures.output_tokens)} out, ${costPhrase(figures.cost)}`,
        ),
      ),
    ];
    const budget = budgetFor(report.budgets ?? [], this.model);
    this.figures.replaceChildren(
      ...entry('Today (UTC)', today),
      ...entry(`Last ${periodDays} days`, report.total),
      ...(budget
        ? [
            el('dt', {}, 'Budget left today'),
            el(
              'dd',
              { 'data-budget': budget.left > 0 ? 'left' : 'spent' },
              budget.left > 0 ? `${tokenCount(budget.left)} of ${tokenCount(budget.limit)} tokens` : 'None: the budget is spent',
              el('span', { class: 'cell-note' }, `${budget.model ? `${budget.model}’s own; resets` : 'Resets'} at 00:00 UTC`),
            ),
          ]
        : []),
    );
    say(this.note, report.days.length === 0 ? `No tokens spent in the last ${periodDays} days.` : '');
  }
}
