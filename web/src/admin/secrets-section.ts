import type { Schemas } from '../../../src/api/openapi-types.js';
import { RECORD_KINDS } from '../../../src/records/record-kinds.js';
import { errorMessage } from '../api.js';
import { byId, el } from '../dom.js';
import { openFormDialog, type FieldSpec, type FormValues } from '../form-dialog.js';
import { actions, KeyedTable, named, cellContent, type RowAction } from './keyed-table.js';
import { recordPath, removeConfirmed, SectionFrame, type AdminContext, type AdminSection } from './section.js';

const { path: SECRETS, permissions } = RECORD_KINDS.secrets;

type Secret = Schemas['Secret'];

const PROVIDER_LABELS: Record<Secret['provider'], string> = {
  'environment-variable': 'Environment variable',
  'text-file': 'Text file',
};

const providerIs = (provider: Secret['provider']) => (values: FormValues) => values.provider === provider;

/**
 * Where a secret's value is read decides what a worker hands out, so only superusers set the
 * provider and its parameters; other tokens may rename and describe.
 */
function secretFields(superuser: boolean): FieldSpec[] {
  return [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxLength: 100, hint: 'What models and MCP servers call it.' },
    { name: 'description', label: 'Description', kind: 'text', maxLength: 255 },
    ...(superuser
      ? ([
          {
            name: 'provider',
            label: 'Where the value lives',
            kind: 'select',
            options: Object.entries(PROVIDER_LABELS).map(([value, label]) => ({ value, label })),
            hint: 'The value itself is never typed here, shown or stored: workers read it when they need it.',
          },
          {
            name: 'parameters.variable',
            label: 'Variable name',
            kind: 'text',
            required: true,
            placeholder: 'OPENAI_API_KEY',
            hint: 'Read from each worker’s environment.',
            shown: providerIs('environment-variable'),
          },
          {
            name: 'parameters.path',
            label: 'File path',
            kind: 'text',
            required: true,
            placeholder: '/run/secrets/openai',
            hint: 'An absolute path on each worker; the file’s content, trimmed, is the value.',
            shown: providerIs('text-file'),
          },
        ] satisfies FieldSpec[])
      : []),
  ];
}

/** Secrets: where each value lives (a variable or a file), never the value. */
export class SecretsSection implements AdminSection {
  private secrets: Secret[] = [];
  private readonly table = new KeyedTable<Secret>(
    byId('secrets', HTMLTableElement),
    (secret) => secret.id,
    [
      named(),
      cellContent((secret) => PROVIDER_LABELS[secret.provider] ?? secret.provider),
      cellContent((secret) => el('code', {}, secret.parameters.variable ?? secret.parameters.path ?? '')),
      actions(
        (secret) => secret.id,
        (secret) => secret.name,
        () => this.rowActions(),
      ),
    ],
    'No secrets yet.',
  );

  private readonly frame: SectionFrame;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, { name: 'secrets', permission: permissions.view, what: 'list secrets' });
    const { access } = context;
    // A secret cannot be made without saying where its value lives.
    this.frame.offerAdd(access.canWrite(permissions.add) && access.canWrite('superuser'), () => void this.edit(null));
    if (this.frame.readable && !access.canWrite('superuser')) {
      this.frame.explain('Only a superuser decides where a secret’s value is read from; this token may rename and describe secrets.');
    }
    this.table.onAction((action, id) => void this.act(action, id));
  }

  load(): Promise<void> {
    return this.frame.run(async () => {
      this.secrets = await this.context.api.every<Secret>(`${SECRETS}?limit=1000`);
      this.table.update(this.secrets);
    });
  }

  private rowActions(): RowAction[] {
    const { access } = this.context;
    return [
      ...(access.canWrite(permissions.change) ? [{ action: 'edit', label: 'Edit' }] : []),
      ...(access.canWrite(permissions.delete) ? [{ action: 'delete', label: 'Delete', danger: true }] : []),
    ];
  }

  private async act(action: string, id: string): Promise<void> {
    const secret = this.secrets.find((candidate) => candidate.id === id);
    if (!secret) return;
    if (action === 'edit')
      await this.edit(secret).catch((failure: unknown) =>
        this.context.announce(`${secret.name} cannot be edited: ${errorMessage(failure)}`),
      );
    else if (action === 'delete') {
      await removeConfirmed(this.context, {
        title: `Delete secret ${secret.name}?`,
        message: 'Models and MCP servers that name it fail to authenticate until they name another one.',
        action: 'Delete secret',
        request: () => this.context.api.request('DELETE', recordPath(SECRETS, secret.id)),
        done: `Secret ${secret.name} deleted.`,
      });
    }
  }

  private async edit(secret: Secret | null): Promise<void> {
    const { api, access } = this.context;
    const saved = await openFormDialog({
      title: secret ? `Edit secret ${secret.name}` : 'Add a secret',
      submit: secret ? 'Save changes' : 'Create secret',
      fields: secretFields(access.canWrite('superuser')),
      values: secret
        ? {
            name: secret.name,
            description: secret.description,
            provider: secret.provider,
            'parameters.variable': secret.parameters.variable,
            'parameters.path': secret.parameters.path,
          }
        : { provider: 'environment-variable' },
      send: async (body) => {
        const sent = await api.request<Secret>(secret ? 'PATCH' : 'POST', secret ? recordPath(SECRETS, secret.id) : SECRETS, { body });
        this.context.announce(secret ? `Secret ${sent.name} saved.` : `Secret ${sent.name} created.`);
      },
    });
    if (saved) await this.context.changed();
  }
}
