import { ApiError, errorMessage, type Api, type Page } from './api.js';
import { byId, el, present, say, type Child } from './dom.js';
import { timeElement } from './format.js';
import { startPage } from './page.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const KB = '/api/plugins/ai-ops/kb/';
const DEFAULT_REFRESH_S = 10;

interface LlmModel {
  id: string;
  name: string;
  provider: string;
  hosted_endpoint: string;
  is_default: boolean;
}

interface McpServer {
  id: string;
  name: string;
  status: { id: string; name: string } | null;
  protocol: 'http' | 'stdio';
  url: string;
  command: string;
  mcp_endpoint: string;
  last_checked: string | null;
  last_error: string | null;
  latency_ms: number | null;
}

interface HealthCheck {
  status: string | null;
  healthy: boolean | null;
  latency_ms: number | null;
  error: string | null;
}

interface KbRepository {
  name: string;
  description: string;
  source: 'official' | 'user';
  enabled: boolean;
}

interface KbRepositoryStatus {
  name: string;
  status: 'indexed' | 'not_indexed' | 'indexing' | 'failed';
  documents: number;
  last_indexed: string | null;
  progress?: { files_done: number; files_total: number };
  error?: string;
}

interface KbStatus {
  repositories: KbRepositoryStatus[];
  total_documents: number;
  indexing_active: boolean;
}

type KbRow = KbRepository & { state?: KbRepositoryStatus };

/** Renders one cell of a row from its item. */
type Column<T> = (item: T, cell: HTMLTableCellElement) => void;

/** Replaces a cell's content. */
const text =
  <T>(content: (item: T) => Child | Child[]): Column<T> =>
  (item, cell) =>
    cell.replaceChildren(...present([content(item)].flat()));

/**
 * A button made once per row and kept across refreshes, so keyboard focus on it survives them.
 * While its work runs it is aria-disabled rather than disabled: a disabled button drops focus.
 */
const action =
  <T>(label: (item: T) => string, describe: (item: T) => { action: string; key: string; busy: boolean; busyLabel: string; name: string }): Column<T> =>
  (item, cell) => {
    const { action: name, key, busy, busyLabel, name: target } = describe(item);
    let button = cell.querySelector('button');
    if (!button) {
      button = el('button', { type: 'button', 'data-action': name });
      cell.append(button);
    }
    button.dataset.key = key;
    button.setAttribute('aria-disabled', String(busy));
    button.textContent = busy ? busyLabel : label(item);
    button.setAttribute('aria-label', `${busy ? busyLabel : label(item)} ${target}`);
  };

/** A table whose rows are keyed and updated in place. */
class KeyedTable<T> {
  private readonly rows = new Map<string, HTMLTableRowElement>();
  private readonly body: HTMLTableSectionElement;

  constructor(
    table: HTMLTableElement,
    private readonly key: (item: T) => string,
    private readonly columns: Column<T>[],
    private readonly emptyText: string,
  ) {
    const body = table.tBodies[0];
    if (!body) throw new Error(`#${table.id} has no body`);
    this.body = body;
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

function badge(status: string | undefined): HTMLElement {
  const name = status ?? 'Unknown';
  return el('span', { class: 'badge', 'data-status': name.toLowerCase().replace(/[^a-z]+/g, '-') }, name);
}

function refreshSeconds(): number {
  const asked = Number(new URLSearchParams(location.search).get('refresh'));
  return Number.isInteger(asked) && asked >= 1 && asked <= 300 ? asked : DEFAULT_REFRESH_S;
}

/** Models, MCP servers with their health and the knowledge base, refreshed on a timer while the page is visible. */
class AdminPage {
  private readonly announcer = byId('admin-announcer', HTMLElement);
  private readonly refreshNote = byId('refresh-note', HTMLElement);
  private readonly kbSummary = byId('kb-summary', HTMLElement);
  private readonly intervalS = refreshSeconds();
  private readonly checking = new Set<string>();
  private readonly reindexing = new Set<string>();
  private readonly statuses = new Map<string, string>();
  private servers: McpServer[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | null = null;

  private readonly models = new KeyedTable<LlmModel>(byId('models', HTMLTableElement), (model) => model.id, [
    text((model) => model.name),
    text((model) => model.provider),
    text((model) => model.hosted_endpoint || el('span', { class: 'muted' }, 'provider default')),
    text((model) => (model.is_default ? el('span', { class: 'badge', 'data-status': 'default' }, 'Default') : '')),
  ], 'No LLM models yet.');

  private readonly serverTable = new KeyedTable<McpServer>(byId('servers', HTMLTableElement), (server) => server.id, [
    text((server) => server.name),
    text((server) => badge(server.status?.name)),
    text((server) => el('code', {}, server.protocol === 'http' ? `${server.url}${server.mcp_endpoint}` : server.command)),
    text((server) => timeElement(server.last_checked)),
    text((server) => (server.latency_ms === null ? el('span', { class: 'muted' }, '—') : `${Math.round(server.latency_ms)} ms`)),
    text((server) => server.last_error ?? ''),
    action(
      () => 'Check now',
      (server) => ({ action: 'check', key: server.id, busy: this.checking.has(server.id), busyLabel: 'Checking…', name: server.name }),
    ),
  ], 'No MCP servers yet.');

  private readonly repositories = new KeyedTable<KbRow>(byId('repositories', HTMLTableElement), (repo) => repo.name, [
    text((repo) => [repo.name, repo.description ? el('span', { class: 'cell-note' }, repo.description) : null]),
    text((repo) => `${repo.source}${repo.enabled ? '' : ' (disabled)'}`),
    text((repo) => [badge((repo.state?.status ?? 'not_indexed').replace('_', ' ')), repo.state?.error ? el('span', { class: 'cell-note error' }, repo.state.error) : null]),
    text((repo) => String(repo.state?.documents ?? 0)),
    text((repo) => timeElement(repo.state?.last_indexed ?? null)),
    text((repo) => {
      const progress = repo.state?.progress;
      if (!progress) return el('span', { class: 'muted' }, '—');
      return [
        el('progress', { max: Math.max(progress.files_total, 1), value: progress.files_done, 'aria-label': `Indexing ${repo.name}` }),
        ` ${progress.files_done} / ${progress.files_total} files`,
      ];
    }),
    action(
      () => 'Re-index',
      (repo) => ({ action: 'reindex', key: repo.name, busy: this.reindexing.has(repo.name) || repo.state?.status === 'indexing', busyLabel: 'Indexing…', name: repo.name }),
    ),
  ], 'No repositories.');

  constructor(private readonly api: Api) {}

  async start(): Promise<void> {
    document.addEventListener('click', (event) => {
      const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-action]') : null;
      const key = button?.dataset.key;
      if (!key || button.getAttribute('aria-disabled') === 'true') return;
      if (button.dataset.action === 'check') void this.checkNow(key);
      else if (button.dataset.action === 'reindex') void this.reindex(key);
    });
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
      await Promise.all([this.loadModels(), this.loadServers(), this.loadKnowledgeBase()]);
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

  private async section(errorId: string, load: () => Promise<void>): Promise<void> {
    const error = byId(errorId, HTMLElement);
    try {
      await load();
      say(error, '');
    } catch (failure) {
      say(error, errorMessage(failure));
    }
  }

  private loadModels(): Promise<void> {
    return this.section('models-error', async () => {
      this.models.update((await this.api.get<Page<LlmModel>>(`${MODELS}?limit=1000`)).results);
    });
  }

  private loadServers(): Promise<void> {
    return this.section('servers-error', async () => {
      this.servers = (await this.api.get<Page<McpServer>>(`${SERVERS}?limit=1000`)).results;
      const changes: string[] = [];
      for (const server of this.servers) {
        const status = server.status?.name ?? 'Unknown';
        const before = this.statuses.get(server.id);
        if (before !== undefined && before !== status) changes.push(`${server.name} is now ${status}.`);
        this.statuses.set(server.id, status);
      }
      if (changes.length > 0) this.announce(changes.join(' '));
      this.serverTable.update(this.servers);
    });
  }

  private loadKnowledgeBase(): Promise<void> {
    return this.section('kb-error', async () => {
      const [repositories, status] = await Promise.all([this.api.get<Page<KbRepository>>(`${KB}repos/`), this.api.get<KbStatus>(`${KB}status/`)]);
      const states = new Map(status.repositories.map((state) => [state.name, state]));
      this.repositories.update(repositories.results.map((repo) => ({ ...repo, state: states.get(repo.name) })));
      this.kbSummary.textContent = `${status.total_documents} chunks indexed${status.indexing_active ? '; indexing now' : ''}.`;
    });
  }

  private announce(message: string): void {
    this.announcer.textContent = message;
  }

  private async checkNow(id: string): Promise<void> {
    const name = this.servers.find((server) => server.id === id)?.name ?? 'The server';
    this.checking.add(id);
    this.serverTable.update(this.servers);
    try {
      const result = await this.api.request<HealthCheck>('POST', `${SERVERS}${encodeURIComponent(id)}/health-check/`);
      const latency = result.latency_ms === null ? '' : ` in ${Math.round(result.latency_ms)} ms`;
      this.announce(
        result.healthy
          ? `${name}: check passed${latency}; status ${result.status ?? 'unknown'}.`
          : `${name}: check failed${latency}${result.error ? ` (${result.error})` : ''}; status ${result.status ?? 'unknown'}.`,
      );
    } catch (failure) {
      this.announce(`${name}: the check could not run: ${errorMessage(failure)}`);
    } finally {
      this.checking.delete(id);
    }
    await this.refreshAfterChange();
  }

  private async reindex(name: string): Promise<void> {
    this.reindexing.add(name);
    try {
      const path = name.split('/').map(encodeURIComponent).join('/');
      await this.api.request('POST', `${KB}repos/${path}/reindex/`);
      this.announce(`Re-indexing ${name}.`);
    } catch (failure) {
      this.announce(`${name} could not be re-indexed: ${errorMessage(failure)}`);
    } finally {
      this.reindexing.delete(name);
    }
    await this.refreshAfterChange();
  }
}

startPage({
  // Any valid token may open the page; each section says what its permissions allow.
  check: async (api) => {
    await api.get('/api/extras/statuses/?limit=1').catch((failure: unknown) => {
      if (!(failure instanceof ApiError && failure.status === 403)) throw failure;
    });
  },
  start: (api) => new AdminPage(api).start(),
});
