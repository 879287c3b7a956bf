import type { Schemas } from '../../../src/api/openapi-types.js';
import { ApiError, errorMessage, type Page } from '../api.js';
import { byId, el } from '../dom.js';
import { badge, timeElement } from '../format.js';
import { openFormDialog, type FieldSpec } from '../form-dialog.js';
import { actions, KeyedTable, named, cellContent, type RowAction } from './keyed-table.js';
import { removeConfirmed, secretNames, SectionFrame, type AdminContext, type AdminSection } from './section.js';

const KB = '/api/plugins/ai-ops/kb/';

type KbRepository = Schemas['KbRepository'];
type KbStatus = Schemas['KbStatus'];
type KbRepositoryStatus = KbStatus['repositories'][number];

type KbRow = KbRepository & { state?: KbRepositoryStatus };

/** A Git URL (`https://…`, `ssh://…`, `git@host:path`) or a local folder, as opposed to owner/name. */
const isRemote = (repo: unknown) => typeof repo === 'string' && /^[a-z][a-z0-9+.-]*:\/\/|^\/|^[^/@:]+@[^/:]+:/i.test(repo.trim());

/** The form of a new repository: a secret only for a superuser, who alone may name one. */
function repositoryFields(superuser: boolean, secrets: string[]): FieldSpec[] {
  return [
    {
      name: 'repo',
      label: 'Repository',
      kind: 'text',
      required: true,
      placeholder: 'owner/name, https://git.example.com/group/name.git or /srv/git/name',
      hint: 'owner/name on the configured Git host, a Git URL (https://, ssh://, git@host:path), or a folder under KB_LOCAL_ROOTS.',
    },
    {
      name: 'name',
      label: 'Listed as (optional)',
      kind: 'text',
      placeholder: 'owner/name',
      hint: 'Empty: the last two parts of its path.',
      shown: (values) => isRemote(values.repo),
    },
    {
      name: 'branch',
      label: 'Branch (optional)',
      kind: 'text',
      hint: 'Empty: main for owner/name, the default branch of a URL or folder.',
    },
    ...(superuser
      ? ([
          {
            name: 'secret',
            label: 'Credential secret (optional)',
            kind: 'text',
            suggestions: secrets,
            hint: 'Sent to this repository’s host only: a token over https, an SSH private key over ssh.',
          },
        ] satisfies FieldSpec[])
      : []),
    { name: 'description', label: 'Description', kind: 'text', maxLength: 500 },
  ];
}

/** `owner/name` as two escaped path segments. */
function repositoryPath(name: string): string {
  return `${KB}repos/${name.split('/').map(encodeURIComponent).join('/')}/`;
}

/** Knowledge-base repositories: add, remove (user ones), re-index, with indexing progress. */
export class KnowledgeSection implements AdminSection {
  private readonly summary = byId('kb-summary', HTMLElement);
  private readonly reindexing = new Set<string>();
  private rows: KbRow[] = [];
  private readonly table = new KeyedTable<KbRow>(
    byId('repositories', HTMLTableElement),
    (repo) => repo.name,
    [
      named(),
      cellContent((repo) => [
        `${repo.source}${repo.enabled ? '' : ' (disabled)'}`,
        repo.url ? el('span', { class: 'cell-note' }, el('code', {}, repo.url)) : null,
        repo.secret ? el('span', { class: 'cell-note' }, `credential: ${repo.secret}`) : null,
      ]),
      cellContent((repo) => [
        badge((repo.state?.status ?? 'not_indexed').replace('_', ' ')),
        repo.state?.error ? el('span', { class: 'cell-note error' }, repo.state.error) : null,
      ]),
      cellContent((repo) => String(repo.state?.documents ?? 0)),
      cellContent((repo) => timeElement(repo.state?.last_indexed ?? null)),
      cellContent((repo) => {
        const progress = repo.state?.progress;
        if (!progress) return el('span', { class: 'muted' }, '—');
        return [
          el('progress', { max: Math.max(progress.files_total, 1), value: progress.files_done, 'aria-label': `Indexing ${repo.name}` }),
          ` ${progress.files_done} / ${progress.files_total} files`,
        ];
      }),
      actions(
        (repo) => repo.name,
        (repo) => repo.name,
        (repo) => this.rowActions(repo),
      ),
    ],
    'No repositories.',
  );

  private readonly frame: SectionFrame;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, { name: 'kb', permission: 'ai_ops.view_kb', what: 'see the knowledge base' });
    const { access } = context;
    this.frame.offerAdd(access.canWrite('ai_ops.change_kb'), () => void this.add());
    this.table.onAction((action, name) => void this.act(action, name));
  }

  load(): Promise<void> {
    return this.frame.run(async () => {
      const [repositories, status] = await Promise.all([
        this.context.api.get<Page<KbRepository>>(`${KB}repos/`),
        this.context.api.get<KbStatus>(`${KB}status/`),
      ]);
      const states = new Map(status.repositories.map((state) => [state.name, state]));
      this.rows = repositories.results.map((repo) => ({ ...repo, state: states.get(repo.name) }));
      this.table.update(this.rows);
      this.summary.textContent = `${status.total_documents} chunks indexed${status.indexing_active ? '; indexing now' : ''}.`;
    });
  }

  private rowActions(repo: KbRow): RowAction[] {
    if (!this.context.access.canWrite('ai_ops.change_kb')) return [];
    const indexing = this.reindexing.has(repo.name) || repo.state?.status === 'indexing';
    return [
      { action: 'reindex', label: 'Re-index', busy: indexing ? 'Indexing…' : undefined },
      ...(repo.source === 'user' ? [{ action: 'remove', label: 'Remove', danger: true }] : []),
    ];
  }

  private async act(action: string, name: string): Promise<void> {
    if (action === 'reindex') await this.reindex(name);
    else if (action === 'remove') {
      await removeConfirmed(this.context, {
        title: `Remove repository ${name}?`,
        message: 'Its chunks, its manifest and its clone are deleted; the agent no longer finds its content.',
        action: 'Remove repository',
        request: () => this.context.api.request('DELETE', repositoryPath(name)),
        done: `Repository ${name} removed.`,
      });
    }
  }

  private async add(): Promise<void> {
    const { superuser } = this.context.access.token;
    const saved = await openFormDialog({
      title: 'Add a knowledge-base repository',
      submit: 'Add and index',
      fields: repositoryFields(superuser, superuser ? await secretNames(this.context) : []),
      send: async ({ repo, ...fields }) => {
        // Empty optional fields mean their defaults: they are not sent.
        const body = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
        const remote = isRemote(repo);
        // The API takes owner/name as `name` and anything else as `url`: its answer about either is the Repository field's.
        const field = remote ? 'url' : 'name';
        try {
          const added = await this.context.api.request<KbRepository>('POST', `${KB}repos/`, { body: { ...body, [field]: repo } });
          this.context.announce(`Repository ${added.name} added; indexing it now.`);
        } catch (failure) {
          if (!(failure instanceof ApiError) || !failure.fields[field]) throw failure;
          const { [field]: messages, ...others } = failure.fields;
          throw new ApiError(failure.message, failure.status, { ...others, repo: messages! });
        }
      },
    });
    if (saved) await this.context.changed();
  }

  private async reindex(name: string): Promise<void> {
    this.reindexing.add(name);
    this.table.update(this.rows);
    try {
      await this.context.api.request('POST', `${repositoryPath(name)}reindex/`);
      this.context.announce(`Re-indexing ${name}.`);
    } catch (failure) {
      this.context.announce(`${name} could not be re-indexed: ${errorMessage(failure)}`);
    } finally {
      this.reindexing.delete(name);
    }
    await this.context.changed();
  }
}
