import { ApiError, errorMessage, type FieldErrors } from './api.js';
import { el, say } from './dom.js';

/** A value a form field holds, as the API takes it. */
export type FieldValue = string | number | boolean | string[] | Record<string, unknown> | null;
/** The form's current values by field name (dotted names for nested fields: `parameters.path`). */
export type FormValues = Record<string, FieldValue | undefined>;

interface FieldBase {
  /** The API's field name; `a.b` is sent as `{a: {b}}`. */
  name: string;
  label: string;
  hint?: string;
  /** Shown only while this holds (provider- or protocol-specific fields); hidden fields are not sent. */
  shown?: (values: FormValues) => boolean;
  /** Sent instead of nothing while the field is hidden (clears what another provider used). */
  whenHidden?: FieldValue;
}

export type FieldSpec = FieldBase &
  (
    | { kind: 'text' | 'url' | 'textarea'; required?: boolean; placeholder?: string; suggestions?: string[]; maxLength?: number }
    /** A secret typed in: never filled in from `values`, sent trimmed, and emptied when the dialog closes. */
    | { kind: 'password'; required?: boolean }
    /** One value per line, sent as an array. */
    | { kind: 'lines' }
    /** A JSON object. */
    | { kind: 'json' }
    | { kind: 'number'; min?: number; max?: number; step?: number }
    | { kind: 'select'; options: { value: string; label: string }[] }
    | { kind: 'checkbox' }
    | { kind: 'checkboxes'; options: { value: string; label: string }[] }
    /** A local date and time, sent as ISO 8601 (null when empty). */
    | { kind: 'datetime' }
  );

export interface FormOptions {
  title: string;
  /** The submit button's label ("Create model", "Save changes"). */
  submit: string;
  fields: FieldSpec[];
  values?: FormValues;
  /** Sends the body; an ApiError with `fields` is shown next to those fields, the dialog stays open. */
  send(body: Record<string, unknown>): Promise<void>;
}

type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

interface RenderedField {
  spec: FieldSpec;
  wrapper: HTMLElement;
  /** The element that takes focus and carries aria-invalid. */
  control: Control;
  /** Checkboxes of a `checkboxes` field. */
  boxes: HTMLInputElement[];
  error: HTMLElement;
}

let formCounter = 0;

/** `{a: {b: 1}}` from `a.b = 1`. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

/** A value as a text control shows it: an object or list as JSON rather than `[object Object]`. */
function fieldText(value: FieldValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A `datetime-local` value for an ISO time, in the browser's zone. */
function localDateTime(iso: string): string {
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function renderField(spec: FieldSpec, id: string, value: FieldValue | undefined): RenderedField {
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [spec.hint ? hintId : '', errorId].filter(Boolean).join(' ');
  const error = el('p', { id: errorId, class: 'field-error error', hidden: true });
  const hint = spec.hint ? el('p', { id: hintId, class: 'hint' }, spec.hint) : null;
  let control: Control;
  let boxes: HTMLInputElement[] = [];
  let wrapper: HTMLElement;

  if (spec.kind === 'checkbox') {
    control = el('input', { id, type: 'checkbox', name: spec.name, checked: value === true, 'aria-describedby': describedBy });
    wrapper = el('div', { class: 'field field-checkbox' }, el('label', { for: id }, control, ' ', spec.label), hint, error);
  } else if (spec.kind === 'checkboxes') {
    const chosen = new Set(Array.isArray(value) ? value : []);
    boxes = spec.options.map((option, index) =>
      el('input', { id: `${id}-${index}`, type: 'checkbox', name: spec.name, value: option.value, checked: chosen.has(option.value) }),
    );
    control = boxes[0] ?? el('input', { id, type: 'hidden' });
    wrapper = el(
      'fieldset',
      { class: 'field field-group', 'aria-describedby': describedBy },
      el('legend', {}, spec.label),
      el(
        'div',
        { class: 'checkbox-grid' },
        ...boxes.map((box, index) => el('label', { for: box.id }, box, ' ', el('code', {}, spec.options[index]!.label))),
      ),
      hint,
      error,
    );
  } else {
    const common = { id, name: spec.name, 'aria-describedby': describedBy };
    if (spec.kind === 'select') {
      control = el(
        'select',
        common,
        ...spec.options.map((option) => el('option', { value: option.value, selected: option.value === value }, option.label)),
      );
    } else if (spec.kind === 'textarea' || spec.kind === 'json' || spec.kind === 'lines') {
      const text =
        spec.kind === 'json'
          ? JSON.stringify(value ?? {}, null, 2)
          : spec.kind === 'lines'
            ? Array.isArray(value)
              ? value.join('\n')
              : ''
            : fieldText(value);
      control = el('textarea', { ...common, rows: spec.kind === 'textarea' ? 4 : 3, spellcheck: spec.kind === 'textarea' }, text);
    } else if (spec.kind === 'number') {
      control = el('input', {
        ...common,
        type: 'number',
        inputmode: 'decimal',
        min: spec.min,
        max: spec.max,
        step: spec.step ?? 'any',
        value: fieldText(value),
      });
    } else if (spec.kind === 'datetime') {
      control = el('input', { ...common, type: 'datetime-local', value: typeof value === 'string' && value ? localDateTime(value) : '' });
    } else if (spec.kind === 'password') {
      control = el('input', {
        ...common,
        type: 'password',
        'aria-required': spec.required ? 'true' : undefined,
        autocomplete: 'off',
        spellcheck: false,
      });
    } else {
      const listId = spec.suggestions?.length ? `${id}-suggestions` : undefined;
      control = el('input', {
        ...common,
        type: spec.kind === 'url' ? 'url' : 'text',
        value: fieldText(value),
        placeholder: spec.placeholder,
        'aria-required': spec.required ? 'true' : undefined,
        maxlength: spec.maxLength,
        list: listId,
        autocomplete: 'off',
        spellcheck: false,
      });
    }
    // Required fields say so to assistive technology (aria-required); optional ones say so in their label.
    wrapper = el('div', { class: 'field' }, el('label', { for: id }, spec.label), control, hint, error);
    if ((spec.kind === 'text' || spec.kind === 'url') && spec.suggestions?.length) {
      wrapper.append(el('datalist', { id: `${id}-suggestions` }, ...spec.suggestions.map((name) => el('option', { value: name }))));
    }
  }
  return { spec, wrapper, control, boxes, error };
}

class FieldError extends Error {}

/** The field's value as the API takes it; throws FieldError for input that cannot be sent (bad JSON). */
function readField({ spec, control, boxes }: RenderedField): FieldValue | undefined {
  switch (spec.kind) {
    case 'checkbox':
      return (control as HTMLInputElement).checked;
    case 'checkboxes':
      return boxes.filter((box) => box.checked).map((box) => box.value);
    case 'number':
      return control.value.trim() === '' ? undefined : Number(control.value);
    case 'lines':
      return control.value
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
    case 'json': {
      const text = control.value.trim();
      if (!text) return {};
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new FieldError('This is not valid JSON.');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new FieldError('Write a JSON object: {"max_tokens": 512}.');
      return parsed as Record<string, unknown>;
    }
    case 'datetime':
      return control.value ? new Date(control.value).toISOString() : null;
    case 'password':
      return control.value.trim();
    case 'url':
      if (control.value.trim() && !/^https?:\/\/\S+$/.test(control.value.trim()))
        throw new FieldError('Enter a URL that starts with http:// or https://.');
      return control.value.trim();
    default:
      return control.value;
  }
}

/**
 * A record's form in a modal dialog: fields shown as the chosen provider or protocol needs them,
 * the API's `{field: [messages]}` next to each field (the first one focused), everything else
 * above the buttons. Escape or Cancel closes it; focus returns to the button that opened it.
 * Resolves to whether the form was sent successfully.
 */
export function openFormDialog(options: FormOptions): Promise<boolean> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const id = `form-${++formCounter}`;
  const fields = options.fields.map((spec, index) => renderField(spec, `${id}-${index}`, options.values?.[spec.name]));
  const formError = el('p', { class: 'error', role: 'alert', hidden: true });
  const submit = el('button', { type: 'submit' }, options.submit);
  const cancel = el('button', { type: 'button', class: 'ghost' }, 'Cancel');
  const form = el(
    'form',
    { novalidate: true },
    ...fields.map((field) => field.wrapper),
    formError,
    el('div', { class: 'dialog-actions' }, cancel, submit),
  );
  const dialog = el(
    'dialog',
    { class: 'form-dialog', 'aria-labelledby': `${id}-heading` },
    el('h2', { id: `${id}-heading` }, options.title),
    form,
  );

  /** What the fields hold now; a field that cannot be read yet (half-written JSON) holds nothing. */
  const values = (): FormValues =>
    Object.fromEntries(
      fields.map((field) => {
        try {
          return [field.spec.name, readField(field)];
        } catch {
          return [field.spec.name, undefined];
        }
      }),
    );
  const isShown = (field: RenderedField, current: FormValues) => field.spec.shown?.(current) ?? true;
  const update = () => {
    const current = values();
    for (const field of fields) field.wrapper.hidden = !isShown(field, current);
  };
  const showErrors = (errors: FieldErrors) => {
    const unplaced: string[] = [];
    let first: RenderedField | undefined;
    for (const [name, messages] of Object.entries(errors)) {
      // `parameters` lands on the shown `parameters.path`; `permissions.0` on `permissions`.
      const field =
        fields.find((candidate) => candidate.spec.name === name && !candidate.wrapper.hidden) ??
        fields.find(
          (candidate) =>
            !candidate.wrapper.hidden && (candidate.spec.name.startsWith(`${name}.`) || name.startsWith(`${candidate.spec.name}.`)),
        );
      if (!field) {
        unplaced.push(name === 'non_field_errors' || name === 'detail' ? messages.join(' ') : `${name}: ${messages.join(' ')}`);
        continue;
      }
      say(field.error, [field.error.textContent, ...messages].filter(Boolean).join(' '));
      field.control.setAttribute('aria-invalid', 'true');
      first ??= field;
    }
    say(formError, unplaced.join(' '));
    first?.control.focus();
  };
  const clearErrors = () => {
    for (const field of fields) {
      say(field.error, '');
      field.control.removeAttribute('aria-invalid');
    }
    say(formError, '');
  };

  form.addEventListener('input', update);
  form.addEventListener('change', update);
  update();
  document.body.append(dialog);

  return new Promise((resolve) => {
    let sent = false;
    dialog.addEventListener('close', () => {
      // A secret typed in leaves the page with the dialog.
      for (const field of fields) if (field.spec.kind === 'password') field.control.value = '';
      dialog.remove();
      opener?.focus();
      resolve(sent);
    });
    cancel.addEventListener('click', () => dialog.close());
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (submit.getAttribute('aria-disabled') === 'true') return;
      clearErrors();
      const body: Record<string, unknown> = {};
      const local: FieldErrors = {};
      const current = values();
      for (const field of fields) {
        try {
          const shown = isShown(field, current);
          const value = shown ? readField(field) : field.spec.whenHidden;
          if (value !== undefined) setPath(body, field.spec.name, value);
        } catch (failure) {
          local[field.spec.name] = [errorMessage(failure)];
        }
      }
      if (Object.keys(local).length > 0) {
        showErrors(local);
        return;
      }
      submit.setAttribute('aria-disabled', 'true');
      void options
        .send(body)
        .then(
          () => {
            sent = true;
            dialog.close();
          },
          (failure: unknown) => {
            if (failure instanceof ApiError && Object.keys(failure.fields).length > 0) showErrors(failure.fields);
            else showErrors({ detail: [errorMessage(failure)] });
          },
        )
        .finally(() => submit.removeAttribute('aria-disabled'));
    });
    dialog.showModal();
    fields.find((field) => !field.wrapper.hidden)?.control.focus();
  });
}
