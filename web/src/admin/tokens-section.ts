import type { Schemas } from '../../../src/api/openapi-types.js';
import { PERMISSIONS } from '../../../src/records/auth/permissions.js';
import { byId, el } from '../dom.js';
import { timeElement } from '../format.js';
import { openFormDialog, type FieldSpec } from '../form-dialog.js';
import { actions, KeyedTable, cellContent } from './keyed-table.js';
import { recordPath, removeConfirmed, SectionFrame, type AdminContext, type AdminSection } from './section.js';

const TOKENS = '/api/users/tokens/';

type Token = Schemas['Token'];

const TOKEN_FIELDS: FieldSpec[] = [
  {
    name: 'user',
    label: 'User',
    kind: 'text',
    required: true,
    maxLength: 150,
    hint: 'Letters, digits and @.+-_; the user is created if new.',
  },
  { name: 'description', label: 'Description', kind: 'text', maxLength: 200, hint: 'What it is for, so it can be told apart later.' },
  { name: 'superuser', label: 'Superuser (may do everything, tokens included)', kind: 'checkbox' },
  {
    name: 'permissions',
    label: 'Permissions',
    kind: 'checkboxes',
    options: PERMISSIONS.map((value) => ({ value, label: value })),
    shown: (values) => values.superuser !== true,
  },
  { name: 'write_enabled', label: 'May change things (unchecked: read-only)', kind: 'checkbox' },
  { name: 'expires', label: 'Expires (optional)', kind: 'datetime', hint: 'In your local time; empty: never.' },
];

/** Shows a new key once, with a button that copies it; resolves when the dialog is closed. */
function showKeyOnce(user: string, key: string): Promise<void> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const field = el('input', {
    id: 'new-token-key',
    type: 'text',
    readonly: true,
    value: key,
    spellcheck: false,
    autocomplete: 'off',
    'aria-describedby': 'new-token-hint',
  });
  const copied = el('p', { class: 'hint', role: 'status' });
  const copy = el('button', { type: 'button' }, 'Copy key');
  const done = el('button', { type: 'button', class: 'ghost' }, 'Done');
  const dialog = el(
    'dialog',
    { class: 'form-dialog', 'aria-labelledby': 'new-token-heading' },
    el('h2', { id: 'new-token-heading' }, `New token for ${user}`),
    el('p', { id: 'new-token-hint' }, 'Copy this key now: it is not shown again. Only its last four characters are kept in view.'),
    el('label', { for: 'new-token-key' }, 'Key'),
    el('div', { class: 'copy-row' }, field, copy),
    copied,
    el('div', { class: 'dialog-actions' }, done),
  );
  copy.addEventListener('click', () => {
    field.select();
    navigator.clipboard.writeText(key).then(
      () => (copied.textContent = 'Copied to the clipboard.'),
      () => (copied.textContent = 'The browser refused the clipboard: the key is selected, copy it with Ctrl+C.'),
    );
  });
  done.addEventListener('click', () => dialog.close());
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      // The key leaves the page with the dialog.
      dialog.remove();
      opener?.focus();
      resolve();
    });
    dialog.showModal();
    copy.focus();
  });
}

/** API tokens (superusers only): list, create with the key shown once, revoke. */
export class TokensSection implements AdminSection {
  private tokens: Token[] = [];
  private readonly table = new KeyedTable<Token>(
    byId('tokens', HTMLTableElement),
    (token) => token.id,
    [
      cellContent((token) => [token.user, token.description ? el('span', { class: 'cell-note' }, token.description) : null]),
      cellContent((token) => el('code', {}, `…${token.key_hint}`)),
      cellContent((token) =>
        token.superuser
          ? el('span', { class: 'badge', 'data-status': 'default' }, 'superuser')
          : token.permissions.join(', ') || el('span', { class: 'muted' }, 'none'),
      ),
      cellContent((token) => (token.write_enabled ? 'read-write' : 'read-only')),
      cellContent((token) =>
        token.expires
          ? el('time', { datetime: token.expires }, new Date(token.expires).toLocaleString())
          : el('span', { class: 'muted' }, 'never'),
      ),
      cellContent((token) => timeElement(token.created)),
      actions(
        (token) => token.id,
        (token) => `${token.user}’s token …${token.key_hint}`,
        (token) =>
          this.context.access.canWrite('superuser')
            ? [{ action: 'revoke', label: token.id === this.context.access.token.id ? 'Revoke (this one)' : 'Revoke', danger: true }]
            : [],
      ),
    ],
    'No tokens.',
  );

  private readonly frame: SectionFrame;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, { name: 'tokens', permission: 'superuser', what: 'manage API tokens' });
    const { access } = context;
    byId('tokens-section', HTMLElement).hidden = !this.frame.readable;
    this.frame.offerAdd(access.canWrite('superuser'), () => void this.create());
    this.table.onAction((action, id) => {
      if (action === 'revoke') void this.revoke(id);
    });
  }

  load(): Promise<void> {
    return this.frame.run(async () => {
      this.tokens = await this.context.api.every<Token>(`${TOKENS}?limit=1000`);
      this.table.update(this.tokens);
    });
  }

  private async create(): Promise<void> {
    let created: (Token & { key: string }) | null = null;
    await openFormDialog({
      title: 'Create an API token',
      submit: 'Create token',
      fields: TOKEN_FIELDS,
      values: { write_enabled: true, permissions: ['ai_ops.chat'] },
      send: async (body) => {
        created = await this.context.api.request<Token & { key: string }>('POST', TOKENS, { body });
      },
    });
    const token = created as (Token & { key: string }) | null;
    if (!token) return;
    await this.context.changed();
    this.context.announce(`Token …${token.key_hint} created for ${token.user}.`);
    await showKeyOnce(token.user, token.key);
  }

  private async revoke(id: string): Promise<void> {
    const token = this.tokens.find((candidate) => candidate.id === id);
    if (!token) return;
    const own = token.id === this.context.access.token.id;
    await removeConfirmed(this.context, {
      title: `Revoke ${token.user}’s token …${token.key_hint}?`,
      message: own
        ? 'This is the token this page is signed in with: the page signs out at once.'
        : 'Every request with it is refused from now on, on every instance. This cannot be undone.',
      action: 'Revoke token',
      request: () => this.context.api.request('DELETE', recordPath(TOKENS, token.id)),
      done: `${token.user}’s token …${token.key_hint} revoked.`,
    });
  }
}
