import { Access } from './access.js';
import type { Api } from './api.js';
import { KnowledgeSection } from './admin/knowledge-section.js';
import { ModelsSection } from './admin/models-section.js';
import { PlatformSection } from './admin/platform-section.js';
import type { AdminContext, AdminSection } from './admin/section.js';
import { SecretsSection } from './admin/secrets-section.js';
import { ServersSection } from './admin/servers-section.js';
import { TokensSection } from './admin/tokens-section.js';
import { UsageSection } from './admin/usage-section.js';
import { byId } from './dom.js';
import { startPage } from './page.js';

const DEFAULT_REFRESH_S = 10;

function refreshSeconds(): number {
  const asked = Number(new URLSearchParams(location.search).get('refresh'));
  return Number.isInteger(asked) && asked >= 1 && asked <= 300 ? asked : DEFAULT_REFRESH_S;
}

/**
 * Models, MCP servers with their health, secrets, API tokens, the knowledge base and token usage, each
 * offering only what the signed-in token may do, refreshed on a timer while the page is visible.
 */
class AdminPage {
  private readonly announcer = byId('admin-announcer', HTMLElement);
  private readonly refreshNote = byId('refresh-note', HTMLElement);
  private readonly intervalS = refreshSeconds();
  private readonly sections: AdminSection[];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | null = null;

  constructor(api: Api, access: Access) {
    const context: AdminContext = {
      api,
      access,
      announce: (message) => (this.announcer.textContent = message),
      changed: () => this.refreshAfterChange(),
    };
    byId('signed-in-as', HTMLElement).textContent =
      `Signed in as ${access.token.user}${access.token.superuser ? ' (superuser)' : ''}${access.token.write_enabled ? '' : ', read-only'}.`;
    this.sections = [
      new PlatformSection(context),
      new ModelsSection(context),
      new ServersSection(context),
      new SecretsSection(context),
      new TokensSection(context),
      new KnowledgeSection(context),
      new UsageSection(context),
    ];
  }

  async start(): Promise<void> {
    byId('refresh-now', HTMLButtonElement).addEventListener('click', () => void this.refresh());
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) clearTimeout(this.timer);
      else void this.refresh();
    });
    await this.refresh();
  }

  /** Reloads every section (each fails on its own), then schedules the next refresh. */
  private refresh(): Promise<void> {
    this.running ??= (async () => {
      clearTimeout(this.timer);
      await Promise.all(this.sections.map((section) => section.load()));
      this.refreshNote.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${this.intervalS} s.`;
      if (!document.hidden) this.timer = setTimeout(() => void this.refresh(), this.intervalS * 1_000);
    })().finally(() => (this.running = null));
    return this.running;
  }

  /** A refresh that starts after the change (one already under way may have read the state before it). */
  private async refreshAfterChange(): Promise<void> {
    await this.running;
    await this.refresh();
  }
}

startPage({
  // Any valid token may open the page; each section offers what the token's permissions allow.
  check: (api) => Access.of(api),
  start: (api, access) => new AdminPage(api, access).start(),
});
