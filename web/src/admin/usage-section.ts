import type { Schemas } from '../../../src/api/openapi-types.js';
import { byId, el } from '../dom.js';
import {
  costPhrase,
  costText,
  dayLabel,
  daysBefore,
  sumFigures,
  tokenCount,
  usagePath,
  utcDay,
  type Usage,
  type UsageFigures,
  type UsageFilter,
} from '../usage.js';
import { everyDay, usageChart, usageLegend, usageTable } from './usage-chart.js';
import { SectionFrame, type AdminContext, type AdminSection } from './section.js';

type UsageRow = Schemas['UsageRow'];

/** Rows in a top table, at most. */
const TOP = 10;

/** One line of a top table: a user or a model with what it spent over the period. */
interface Leader {
  key: string;
  name: string;
  note: string;
  figures: UsageFigures;
}

/** The report's rows summed per `keyOf`, the most tokens first, at most `TOP`. */
function leaders(report: Usage, keyOf: (row: UsageRow) => Omit<Leader, 'figures'>): Leader[] {
  const groups = new Map<string, { leader: Omit<Leader, 'figures'>; rows: UsageRow[] }>();
  for (const row of report.days.flatMap((day) => day.rows)) {
    const leader = keyOf(row);
    const group = groups.get(leader.key) ?? { leader, rows: [] };
    group.rows.push(row);
    groups.set(leader.key, group);
  }
  const tokens = (figures: UsageFigures) => figures.input_tokens + figures.output_tokens;
  return [...groups.values()]
    .map(({ leader, rows }) => ({ ...leader, figures: sumFigures(rows) }))
    .sort((a, b) => tokens(b.figures) - tokens(a.figures) || a.name.localeCompare(b.name))
    .slice(0, TOP);
}

/** A top table's body: one row per leader, or a line saying there is none. */
function fillTop(table: HTMLTableElement, rows: Leader[]): void {
  const number = (text: string) => el('td', { class: 'number' }, text);
  table.tBodies[0]!.replaceChildren(
    ...(rows.length === 0
      ? [el('tr', { class: 'empty' }, el('td', { colspan: 4 }, 'No usage in this period.'))]
      : rows.map(({ name, note, figures }) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, name, note ? el('span', { class: 'cell-note' }, note) : null),
            number(tokenCount(figures.input_tokens)),
            number(tokenCount(figures.output_tokens)),
            number(costText(figures.cost)),
          ),
        )),
  );
}

/** What the filters narrow the report to, in words: " for alice on gpt-4o". */
function narrowedTo(user: string, model: string): string {
  return `${user ? ` for ${user}` : ''}${model ? ` on ${model}` : ''}`;
}

/**
 * Token usage (ai_ops.view_usage): tokens in and out and their cost per day over a period as a
 * chart with its figures as a table, the top users and models, filtered by period, user and model.
 * Redrawn only when the figures change, so a refresh leaves the page as it is.
 */
export class UsageSection implements AdminSection {
  private readonly frame: SectionFrame;
  private readonly form = byId('usage-filters', HTMLFormElement);
  private readonly period = byId('usage-period', HTMLSelectElement);
  private readonly user = byId('usage-user', HTMLInputElement);
  private readonly model = byId('usage-model', HTMLInputElement);
  private readonly summary = byId('usage-summary', HTMLElement);
  private readonly chart = byId('usage-chart', HTMLElement);
  private readonly data = byId('usage-data', HTMLDetailsElement);
  private readonly dataTable = byId('usage-data-table', HTMLElement);
  private readonly users = byId('usage-users-table', HTMLTableElement);
  private readonly models = byId('usage-models-table', HTMLTableElement);
  /** Names seen in any report, offered in the filters. */
  private readonly seen = { users: new Set<string>(), models: new Set<string>() };
  /** The filters of the report shown, as they were submitted. */
  private applied = this.submitted();
  /** What is drawn now (the filters and the report), so that an unchanged refresh draws nothing. */
  private drawn = '';
  /** Only the answer to the latest request is drawn. */
  private requests = 0;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, { name: 'usage', permission: 'ai_ops.view_usage', what: 'see every user’s token usage' });
    byId('usage-section', HTMLElement).hidden = !this.frame.readable;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.applied = this.submitted();
      void this.load();
    });
  }

  load(): Promise<void> {
    return this.frame.run(async () => {
      const request = ++this.requests;
      const { days, user, model } = this.applied;
      const until = utcDay(Date.now());
      const filter: UsageFilter = { since: daysBefore(until, days - 1), until, user, model };
      let report: Usage;
      try {
        report = await this.context.api.get<Usage>(usagePath(filter));
      } catch (failure) {
        if (request === this.requests) this.clear();
        throw failure;
      }
      if (request !== this.requests) return;
      const drawing = JSON.stringify([this.applied, report.since, report.until, report.days]);
      if (drawing === this.drawn) return;
      this.drawn = drawing;
      this.draw(report);
    });
  }

  private submitted(): { days: number; user: string; model: string } {
    return { days: Number(this.period.value), user: this.user.value.trim(), model: this.model.value.trim() };
  }

  private draw(report: Usage): void {
    const { user, model } = this.applied;
    const period = `${dayLabel(report.since, true)} to ${dayLabel(report.until, true)} (UTC)${narrowedTo(user, model)}`;
    for (const row of report.days.flatMap((day) => day.rows)) {
      this.seen.users.add(row.user);
      this.seen.models.add(row.model);
    }
    this.suggest('usage-users', this.seen.users);
    this.suggest('usage-models', this.seen.models);
    fillTop(
      this.users,
      leaders(report, (row) => ({ key: row.user_id, name: row.user, note: '' })),
    );
    fillTop(
      this.models,
      leaders(report, (row) => ({ key: row.model, name: row.model, note: row.provider })),
    );
    if (report.days.length === 0) {
      this.summary.textContent = `No token usage from ${period}.`;
      this.chart.replaceChildren(el('p', { class: 'usage-empty' }, 'Nothing to draw: no chat turn spent tokens in this period.'));
      this.data.hidden = true;
      return;
    }
    const { total } = report;
    this.summary.textContent = `From ${period}: ${tokenCount(total.input_tokens)} input and ${tokenCount(total.output_tokens)} output tokens, ${costPhrase(total.cost)}.`;
    const days = everyDay(report);
    this.chart.replaceChildren(
      usageLegend(days.some((day) => day.cost !== null && day.cost > 0)),
      usageChart(days, total, 'usage-chart-image'),
    );
    this.dataTable.replaceChildren(usageTable(days));
    this.data.hidden = false;
  }

  /** A failed load shows nothing of an earlier report, which would pass for the answer. */
  private clear(): void {
    this.drawn = '';
    this.summary.textContent = '';
    this.chart.replaceChildren();
    this.data.hidden = true;
    for (const table of [this.users, this.models]) table.tBodies[0]!.replaceChildren();
  }

  private suggest(listId: string, names: Set<string>): void {
    byId(listId, HTMLDataListElement).replaceChildren(...[...names].sort().map((name) => el('option', { value: name })));
  }
}
