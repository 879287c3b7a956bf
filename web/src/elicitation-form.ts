import type { Schemas } from '../../src/api/openapi-types.js';
import { errorMessage } from './api.js';
import { el, say } from './dom.js';

export type Elicitation = Schemas['ChatElicitation'];
export type ElicitationReply = Schemas['ChatElicitationAnswer'];
type Action = ElicitationReply['action'];

/** One property of a requested schema, as the protocol allows it: flat, with a title, a description and its bounds or choices. */
interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  format?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  enumNames?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown; title?: string }> };
}

/** What an HTML input of a string format is. */
const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/** The choices of a field: `enum` (with `enumNames` left aside) or titled `oneOf`/`anyOf` constants. */
function choices(field: FieldSchema | FieldSchema['items']): Array<{ value: string; label: string }> {
  if (!field) return [];
  // The legacy `enumNames` titles an `enum`'s values.
  const names = 'enumNames' in field && Array.isArray(field.enumNames) ? field.enumNames : [];
  if (Array.isArray(field.enum)) return field.enum.map((value, index) => ({ value: String(value), label: String(names[index] ?? value) }));
  const titled = ('oneOf' in field ? field.oneOf : undefined) ?? ('anyOf' in field ? field.anyOf : undefined) ?? [];
  return titled.map((option) => ({ value: String(option.const), label: option.title ?? String(option.const) }));
}

/** One field of the form: its label, its control and how to read its value back. */
interface FormField {
  element: HTMLElement;
  read(): unknown;
}

function field(name: string, schema: FieldSchema, required: boolean, idPrefix: string): FormField {
  const id = `${idPrefix}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const label = el('label', { for: id }, schema.title ?? name, required ? ' (required)' : '');
  const hint = schema.description ? el('small', { class: 'muted', id: `${id}-hint` }, schema.description) : null;
  const described = hint ? `${id}-hint` : undefined;
  if (schema.type === 'boolean') {
    const box = el('input', { id, type: 'checkbox', checked: schema.default === true, 'aria-describedby': described });
    return { element: el('div', { class: 'elicitation-field checkbox' }, box, label, hint), read: () => box.checked };
  }
  if (schema.type === 'array') {
    const chosen = Array.isArray(schema.default) ? schema.default.map(String) : [];
    const options = choices(schema.items).map((option, index) => {
      const box = el('input', { id: `${id}-${index}`, type: 'checkbox', value: option.value, checked: chosen.includes(option.value) });
      return { box, element: el('label', { for: `${id}-${index}` }, box, ` ${option.label}`) };
    });
    return {
      element: el(
        'fieldset',
        { class: 'elicitation-field' },
        el('legend', {}, schema.title ?? name),
        hint,
        ...options.map((option) => option.element),
      ),
      read: () => {
        const values = options.filter((option) => option.box.checked).map((option) => option.box.value);
        return values.length > 0 ? values : undefined;
      },
    };
  }
  const listed = choices(schema);
  if (listed.length > 0) {
    const select = el(
      'select',
      { id, required, 'aria-describedby': described },
      el('option', { value: '' }, 'Choose…'),
      ...listed.map((option) => el('option', { value: option.value, selected: schema.default === option.value }, option.label)),
    );
    return { element: el('div', { class: 'elicitation-field' }, label, select, hint), read: () => select.value || undefined };
  }
  const numeric = schema.type === 'number' || schema.type === 'integer';
  const input = el('input', {
    id,
    type: numeric ? 'number' : (INPUT_TYPES[schema.format ?? ''] ?? 'text'),
    required,
    step: schema.type === 'integer' ? 1 : numeric ? 'any' : undefined,
    min: schema.minimum,
    max: schema.maximum,
    minlength: schema.minLength,
    maxlength: schema.maxLength,
    value: typeof schema.default === 'string' || typeof schema.default === 'number' ? String(schema.default) : undefined,
    autocomplete: 'off',
    'aria-describedby': described,
  });
  return {
    element: el('div', { class: 'elicitation-field' }, label, input, hint),
    read: () => (input.value === '' ? undefined : numeric ? Number(input.value) : input.value),
  };
}

/**
 * An MCP server's question to the user during a tool call, like an approval: its message, a form
 * built from the requested schema (or the URL to visit), and Submit, Decline and Cancel. The
 * service checks the answer against the schema; its refusal shows here.
 */
export class ElicitationView {
  readonly element: HTMLElement;
  private readonly outcome: HTMLElement;
  private readonly buttons: HTMLButtonElement[];
  /** Once answered (here, in another tab, or by the wait running out). */
  answered?: Action;

  constructor(
    readonly question: Elicitation,
    answer: (reply: ElicitationReply) => Promise<void>,
  ) {
    const idPrefix = `elicitation-${question.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const properties = (question.requested_schema?.properties ?? {}) as Record<string, FieldSchema>;
    const required = new Set((question.requested_schema?.required as string[] | undefined) ?? []);
    const fields = Object.entries(properties).map(([name, schema]) => [name, field(name, schema, required.has(name), idPrefix)] as const);
    const submit = el('button', { type: 'submit', class: 'approve' }, question.mode === 'url' ? 'Done' : 'Submit');
    const decline = el('button', { type: 'button', class: 'danger decline' }, 'Decline');
    const cancel = el('button', { type: 'button', class: 'cancel' }, 'Cancel');
    this.buttons = [submit, decline, cancel];
    this.outcome = el('p', { class: 'elicitation-outcome', role: 'status', hidden: true });
    const send = async (reply: ElicitationReply) => {
      this.busy(true);
      try {
        await answer(reply);
        this.closed(reply.action);
      } catch (failure) {
        this.busy(false);
        say(this.outcome, errorMessage(failure));
      }
    };
    const form = el(
      'form',
      { class: 'elicitation-form' },
      ...fields.map(([, each]) => each.element),
      question.url ? el('p', {}, 'Open ', linkTo(question.url), ', then say when done.') : null,
      el('div', { class: 'approval-controls' }, submit, decline, cancel),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const content = Object.fromEntries(fields.flatMap(([name, each]) => (each.read() === undefined ? [] : [[name, each.read()]])));
      void send(question.mode === 'form' ? { action: 'accept', content } : { action: 'accept' });
    });
    decline.addEventListener('click', () => void send({ action: 'decline' }));
    cancel.addEventListener('click', () => void send({ action: 'cancel' }));
    this.element = el(
      'section',
      { class: 'approval elicitation', 'data-elicitation': question.id, 'aria-label': `Question from ${question.server}` },
      el(
        'p',
        { class: 'approval-heading' },
        'MCP server ',
        el('code', {}, question.server),
        ' asks, for ',
        el('code', {}, question.tool),
        ':',
      ),
      el('p', { class: 'elicitation-message' }, question.message),
      form,
      this.outcome,
    );
  }

  private busy(busy: boolean): void {
    for (const button of this.buttons) button.disabled = busy;
  }

  /** Answered (or lapsed, or the turn ended): no more buttons. */
  closed(action: Action | 'ended', text?: string): void {
    if (this.answered) return;
    if (action !== 'ended') this.answered = action;
    this.element.dataset.decided = action === 'accept' ? 'approved' : 'declined';
    this.element.querySelector('form')?.remove();
    say(this.outcome, text ?? ANSWERED[action]);
  }
}

/** A server's URL as a link only when it is a web address (never `javascript:` or `data:`); otherwise its text. */
function linkTo(url: string): HTMLElement {
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol !== 'https:' && protocol !== 'http:') return el('code', {}, url);
  return el('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, url);
}

const ANSWERED: Record<Action | 'ended', string> = {
  accept: 'Answered.',
  decline: 'Declined.',
  cancel: 'Cancelled.',
  ended: 'The turn ended before an answer.',
};
