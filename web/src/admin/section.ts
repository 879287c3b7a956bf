import type { Access, ActionRequirement } from '../access.js';
import { errorMessage, type Api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { byId, say } from '../dom.js';
import { RECORD_KINDS } from '../../../src/records/record-kinds.js';

/** What every section of the administration page gets from it. */
export interface AdminContext {
  api: Api;
  access: Access;
  /** Says something in the page's live region (screen readers hear it). */
  announce(message: string): void;
  /** Reloads every section after a change, once a refresh already under way is done. */
  changed(): Promise<void>;
}

/** One part of the page (a record type): loads its table on every refresh. */
export interface AdminSection {
  load(): Promise<void>;
}

/** What a section shows and the permission (or `superuser`) that reading it needs. */
export interface SectionView {
  /** The prefix of the section's element ids (`#NAME-error`, `#NAME-note`, `#add-NAME`). */
  name: string;
  permission: ActionRequirement;
  /** What the token could not do without it: "list LLM models". */
  what: string;
}

/**
 * The parts of a section in the page: a load failure shown in its error line, a note saying what
 * the token may not do here, an Add button offered only to tokens that may add. A section the
 * token may not read says so and is never loaded.
 */
export class SectionFrame {
  private readonly error: HTMLElement;
  private readonly note: HTMLElement;
  private readonly add: HTMLButtonElement | null;
  readonly readable: boolean;

  constructor(access: Access, view: SectionView) {
    this.error = byId(`${view.name}-error`, HTMLElement);
    this.note = byId(`${view.name}-note`, HTMLElement);
    this.add = document.getElementById(`add-${view.name}`) as HTMLButtonElement | null;
    this.readable = access.canRead(view.permission);
    this.explain(this.readable ? '' : `This token cannot ${view.what} (it needs ${view.permission}).`);
  }

  /** Shows the Add button when `allowed`, wired to `open`. */
  offerAdd(allowed: boolean, open: () => void): void {
    if (!this.add) return;
    this.add.hidden = !allowed;
    this.add.addEventListener('click', open);
  }

  /** A plain sentence about what this token cannot do here (empty: nothing to say). */
  explain(message: string): void {
    say(this.note, message);
  }

  /** Runs the section's load when the token may read it, showing its failure in the section. */
  async run(load: () => Promise<void>): Promise<void> {
    if (!this.readable) return;
    try {
      await load();
      say(this.error, '');
    } catch (failure) {
      say(this.error, errorMessage(failure));
    }
  }
}

/** `/base/{id}/` with the id escaped. */
export function recordPath(base: string, id: string): string {
  return `${base}${encodeURIComponent(id)}/`;
}

export interface Removal {
  /** "Delete LLM model llama3?" */
  title: string;
  /** What else goes with it. */
  message: string;
  /** The confirming button ("Delete model"). */
  action: string;
  request(): Promise<unknown>;
  /** Announced once done ("llama3 deleted."). */
  done: string;
}

/** A destructive action: asked first, then done, announced, and every section reloaded. */
export async function removeConfirmed(context: AdminContext, removal: Removal): Promise<void> {
  if (!(await confirmAction(removal))) return;
  try {
    await removal.request();
    context.announce(removal.done);
  } catch (failure) {
    context.announce(`${removal.action} failed: ${errorMessage(failure)}`);
  }
  await context.changed();
}

/** Secret names to suggest in a form, when the token may read them (none otherwise). */
export async function secretNames(context: AdminContext): Promise<string[]> {
  const { path, permissions } = RECORD_KINDS.secrets;
  if (!context.access.canRead(permissions.view)) return [];
  const secrets = await context.api.every<{ name: string }>(`${path}?limit=1000`).catch(() => null);
  return secrets?.map((secret) => secret.name) ?? [];
}
