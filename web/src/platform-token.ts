import type { Schemas } from '../../src/api/openapi-types.js';
import { Access } from './access.js';
import { errorMessage, type Api } from './api.js';
import { confirmAction } from './confirm.js';
import { byId, el } from './dom.js';
import { openFormDialog } from './form-dialog.js';

/** The signed-in user's own token for an external platform: write-only, GET says only whether one is stored. */
export const PLATFORM_TOKEN = '/api/plugins/ai-ops/platform-token/';

type PlatformTokenState = Schemas['PlatformTokenState'];

/** "12 May 2026, 10:04" in the browser's language and zone, with the exact time machine-readable. */
function since(iso: string): HTMLElement {
  const date = new Date(iso);
  return el(
    'time',
    { datetime: iso, title: date.toLocaleString() },
    date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  );
}

/**
 * The chat page's control for the user's personal platform token: whether one is stored and since
 * when (never the token), a dialog to store or replace it, and Forget after asking. Shown only when
 * the service keeps personal tokens (GET says `enabled`: it has a PLATFORM_TOKEN_KEY) and the token
 * may chat; the buttons only when it may also change things. The group's `data-state` says which:
 * `none`, `stored` or `unavailable` (hidden). The typed token goes into the PUT's body only: never
 * into the page once the dialog closes, a URL, storage or the console.
 */
export class PlatformTokenControl {
  private readonly group = byId('platform-token', HTMLElement);
  private readonly state = byId('platform-token-state', HTMLElement);
  private readonly store = byId('platform-token-store', HTMLButtonElement);
  private readonly forget = byId('platform-token-forget', HTMLButtonElement);
  private configured = false;
  /** The signed-in token may change things (not read-only). */
  private writable = false;

  /** @param report shows a failure in the page (an empty message clears it). */
  constructor(
    private readonly api: Api,
    private readonly report: (message: string) => void,
  ) {
    this.store.addEventListener('click', () => void this.openStore());
    this.forget.addEventListener('click', () => void this.confirmForget());
  }

  /** Asks what the token may do and whether a platform token is stored; hides the control when there is nothing to offer. */
  async start(): Promise<void> {
    const access = await Access.of(this.api).catch(() => null);
    if (!access?.canRead('ai_ops.chat')) {
      this.group.dataset.state = 'unavailable';
      return;
    }
    this.writable = access.canWrite('ai_ops.chat');
    this.store.hidden = !this.writable;
    await this.refresh();
  }

  /** Reads the state again: shown when the service keeps personal tokens; hidden when it keeps none (no PLATFORM_TOKEN_KEY), on 403 and any other refusal. */
  private async refresh(): Promise<void> {
    const state = await this.api.get<PlatformTokenState>(PLATFORM_TOKEN).catch(() => undefined);
    if (!state?.enabled) {
      this.group.dataset.state = 'unavailable';
      this.group.hidden = true;
      return;
    }
    this.configured = state.configured;
    this.state.replaceChildren(
      ...(state.configured ? ['stored since ', state.updated ? since(state.updated) : 'an unknown time'] : ['none stored']),
    );
    this.group.dataset.state = state.configured ? 'stored' : 'none';
    this.store.textContent = state.configured ? 'Replace token' : 'Store token';
    this.forget.hidden = !state.configured || !this.writable;
    this.group.hidden = false;
  }

  private async openStore(): Promise<void> {
    const saved = await openFormDialog({
      title: this.configured ? 'Replace your platform token' : 'Store your platform token',
      submit: 'Save',
      fields: [
        {
          name: 'token',
          label: 'Platform token',
          kind: 'password',
          required: true,
          hint: `Your own API token for the platform: the agent then calls the platform as you, writes included (each after your approval). It is kept encrypted and never shown again${this.configured ? '; saving replaces the one stored' : ''}.`,
        },
      ],
      send: async (body) => {
        await this.api.request('PUT', PLATFORM_TOKEN, { body });
      },
    });
    if (!saved) return;
    this.report('');
    await this.refresh();
  }

  private async confirmForget(): Promise<void> {
    const confirmed = await confirmAction({
      title: 'Forget your platform token?',
      message:
        'The agent then no longer calls the platform as you: it reads with the service’s own token and cannot change anything there for you until you store one again.',
      action: 'Forget token',
    });
    if (!confirmed) return;
    try {
      await this.api.request('DELETE', PLATFORM_TOKEN);
      this.report('');
    } catch (failure) {
      this.report(`The platform token could not be forgotten: ${errorMessage(failure)}`);
    }
    await this.refresh();
    // The Forget button that had focus is hidden now.
    if (this.forget.hidden) this.store.focus();
  }
}
