import { el, present, type Child } from '../dom.js';

/** Renders one cell of a row from its item. */
export type Column<T> = (item: T, cell: HTMLTableCellElement) => void;

/** Replaces a cell's content. */
export const cellContent =
  <T>(content: (item: T) => Child | Child[]): Column<T> =>
  (item, cell) =>
    cell.replaceChildren(...present([content(item)].flat()));

/** The row's name with its description under it. */
export const named = <T extends { name: string; description: string }>(): Column<T> =>
  cellContent((item) => [item.name, item.description ? el('span', { class: 'cell-note' }, item.description) : null]);

/** One button of a row. */
export interface RowAction {
  /** What the click does (`edit`, `delete`, ...): the section's handler switches on it. */
  action: string;
  label: string;
  /** Work of this button is under way: it says so and does nothing. */
  busy?: string;
  danger?: boolean;
}

/**
 * A row's buttons, made once per row and action and kept across refreshes, so keyboard focus on
 * one survives them. While its work runs a button is aria-disabled rather than disabled: a
 * disabled button drops focus. Each is labelled with the row's name for screen readers.
 */
export const actions =
  <T>(key: (item: T) => string, name: (item: T) => string, list: (item: T) => RowAction[]): Column<T> =>
  (item, cell) => {
    const wanted = list(item);
    const buttons = new Map(
      [...cell.querySelectorAll<HTMLButtonElement>('button[data-action]')].map((button) => [button.dataset.action!, button]),
    );
    for (const [action, button] of buttons) if (!wanted.some((spec) => spec.action === action)) button.remove();
    let previous: HTMLButtonElement | null = null;
    for (const spec of wanted) {
      let button = buttons.get(spec.action);
      if (!button) {
        button = el('button', { type: 'button', 'data-action': spec.action, class: spec.danger ? 'danger' : 'secondary' });
        if (previous) previous.after(button);
        else cell.prepend(button);
      }
      const label = spec.busy ?? spec.label;
      button.dataset.key = key(item);
      button.setAttribute('aria-disabled', String(spec.busy !== undefined));
      button.textContent = label;
      button.setAttribute('aria-label', `${label} ${name(item)}`);
      previous = button;
    }
    cell.classList.add('row-actions');
  };

/** A table whose rows are keyed and updated in place. */
export class KeyedTable<T> {
  private readonly rows = new Map<string, HTMLTableRowElement>();
  private readonly body: HTMLTableSectionElement;

  constructor(
    readonly table: HTMLTableElement,
    private readonly key: (item: T) => string,
    private readonly columns: Column<T>[],
    private readonly emptyText: string,
  ) {
    const body = table.tBodies[0];
    if (!body) throw new Error(`#${table.id} has no body`);
    this.body = body;
  }

  /** Calls `handle(action, key)` for clicks on the row buttons that are not busy. */
  onAction(handle: (action: string, key: string) => void): void {
    this.table.addEventListener('click', (event) => {
      const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-action]') : null;
      const key = button?.dataset.key;
      if (!button || !key || button.getAttribute('aria-disabled') === 'true') return;
      handle(button.dataset.action!, key);
    });
  }

  update(items: T[]): void {
    const keys = new Set(items.map(this.key));
    for (const [key, row] of this.rows) {
      if (keys.has(key)) continue;
      row.remove();
      this.rows.delete(key);
    }
    this.body.querySelector('tr.empty')?.remove();
    let previous: HTMLTableRowElement | null = null;
    for (const item of items) {
      const key = this.key(item);
      let row = this.rows.get(key);
      if (!row) {
        row = el('tr', {}, el('th', { scope: 'row' }), ...this.columns.slice(1).map(() => el('td')));
        this.rows.set(key, row);
      }
      this.columns.forEach((column, index) => column(item, row.cells[index] as HTMLTableCellElement));
      // Rows move only when the order changed: moving a row takes focus away from its button.
      const expected: Element | null = previous ? previous.nextElementSibling : this.body.firstElementChild;
      if (expected !== row) {
        if (previous) previous.after(row);
        else this.body.prepend(row);
      }
      previous = row;
    }
    if (items.length === 0) this.body.append(el('tr', { class: 'empty' }, el('td', { colspan: this.columns.length }, this.emptyText)));
  }
}
