import { ENUMS, type Schemas } from '../../../src/api/openapi-types.js';
import { providerKind } from '../../../src/records/provider-kinds.js';
import { RECORD_KINDS } from '../../../src/records/record-kinds.js';
import { errorMessage } from '../api.js';
import { byId, el } from '../dom.js';
import { openFormDialog, type FieldSpec, type FormValues } from '../form-dialog.js';
import { actions, KeyedTable, named, cellContent, type RowAction } from './keyed-table.js';
import { recordPath, removeConfirmed, secretNames, SectionFrame, type AdminContext, type AdminSection } from './section.js';

const { path: MODELS, permissions } = RECORD_KINDS.llmModels;

export type LlmModel = Schemas['LLMModel'];

const PROVIDERS = ENUMS.LLMProvider;
type Provider = Schemas['LLMProvider'];

/** The kinds whose API has versions (the form asks for one). */
const VERSIONED = PROVIDERS.filter((provider) => providerKind(provider).defaultApiVersion);

/** The record's highest temperature (LLMModel.temperature in the OpenAPI document); some kinds take less. */
const TEMPERATURE_MAX = 2;

const providerIs =
  (...providers: Provider[]) =>
  (values: FormValues) =>
    providers.includes(values.provider as Provider);

/** One variant of a field per provider, each shown only for its provider. */
function perProvider(make: (provider: Provider) => FieldSpec): FieldSpec[] {
  return PROVIDERS.map((provider) => ({ ...make(provider), shown: providerIs(provider) }));
}

/**
 * The form's fields, as each provider uses them. Naming a secret decides where it is sent, and the
 * default model receives every chat that names none, so only superusers are offered either (the
 * API refuses them to anyone else).
 */
function modelFields(secrets: string[], superuser: boolean): FieldSpec[] {
  return [
    {
      name: 'name',
      label: 'Name',
      kind: 'text',
      required: true,
      hint: 'The provider’s model name (for Azure, the deployment).',
      maxLength: 255,
    },
    {
      name: 'provider',
      label: 'Provider',
      kind: 'select',
      options: PROVIDERS.map((value) => ({ value, label: providerKind(value).label })),
    },
    { name: 'description', label: 'Description', kind: 'text', maxLength: 255 },
    ...perProvider((provider) => ({ name: 'hosted_endpoint', kind: 'url', ...providerKind(provider).endpoint, placeholder: 'https://' })),
    {
      name: 'api_version',
      label: 'API version',
      kind: 'text',
      hint: `For example ${VERSIONED.map((provider) => providerKind(provider).defaultApiVersion).join(' or ')}.`,
      shown: providerIs(...VERSIONED),
      whenHidden: '',
    },
    ...(superuser
      ? perProvider((provider) => ({ name: 'model_secret_key', kind: 'text', ...providerKind(provider).secret, suggestions: secrets }))
      : []),
    ...perProvider((provider) => {
      const { label, maxTemperature } = providerKind(provider);
      return {
        name: 'temperature',
        label: 'Temperature',
        kind: 'number',
        min: 0,
        max: maxTemperature,
        step: 0.1,
        hint: maxTemperature < TEMPERATURE_MAX ? `0 to ${maxTemperature} for ${label}.` : `0 to ${TEMPERATURE_MAX}.`,
      };
    }),
    {
      name: 'model_config',
      label: 'Model settings (JSON)',
      kind: 'json',
      hint: 'Passed to the provider: {"max_tokens": 1024}; Hugging Face routes with "inference_provider", custom models pick a handler with "custom_provider".',
    },
    { name: 'system_prompt', label: 'System prompt', kind: 'textarea' },
    ...(superuser
      ? ([{ name: 'is_default', label: 'Default model (chat turns that name no model use it)', kind: 'checkbox' }] satisfies FieldSpec[])
      : []),
  ];
}

/** LLM models: create, edit, make default, delete; the provider decides which fields the form shows. */
export class ModelsSection implements AdminSection {
  private models: LlmModel[] = [];
  private readonly busy = new Map<string, string>();
  private readonly table = new KeyedTable<LlmModel>(
    byId('models', HTMLTableElement),
    (model) => model.id,
    [
      named(),
      cellContent((model) => providerKind(model.provider)?.label ?? model.provider),
      cellContent((model) =>
        model.hosted_endpoint ? el('code', {}, model.hosted_endpoint) : el('span', { class: 'muted' }, 'provider default'),
      ),
      cellContent((model) => (model.is_default ? el('span', { class: 'badge', 'data-status': 'default' }, 'Default') : '')),
      actions(
        (model) => model.id,
        (model) => model.name,
        (model) => this.rowActions(model),
      ),
    ],
    'No LLM models yet.',
  );

  private readonly frame: SectionFrame;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, { name: 'models', permission: permissions.view, what: 'list LLM models' });
    const { access } = context;
    this.frame.offerAdd(access.canWrite(permissions.add), () => void this.edit(null));
    this.table.onAction((action, id) => void this.act(action, id));
  }

  load(): Promise<void> {
    return this.frame.run(async () => {
      this.models = await this.context.api.every<LlmModel>(`${MODELS}?limit=1000`);
      this.table.update(this.models);
    });
  }

  private rowActions(model: LlmModel): RowAction[] {
    const { access } = this.context;
    const busy = this.busy.get(model.id);
    const list: RowAction[] = [];
    if (access.canWrite(permissions.change)) {
      list.push({ action: 'edit', label: 'Edit' });
      if (!model.is_default && access.canWrite('superuser'))
        list.push({ action: 'default', label: 'Make default', busy: busy === 'default' ? 'Switching…' : undefined });
    }
    if (access.canWrite(permissions.delete)) list.push({ action: 'delete', label: 'Delete', danger: true });
    return list;
  }

  private async act(action: string, id: string): Promise<void> {
    const model = this.models.find((candidate) => candidate.id === id);
    if (!model) return;
    if (action === 'edit')
      await this.edit(model).catch((failure: unknown) => this.context.announce(`${model.name} cannot be edited: ${errorMessage(failure)}`));
    else if (action === 'default') await this.makeDefault(model);
    else if (action === 'delete') {
      await removeConfirmed(this.context, {
        title: `Delete LLM model ${model.name}?`,
        message: model.is_default
          ? 'It is the default model: chat turns that name no model fail until another model is made the default.'
          : 'Chat sessions that used it keep their messages; new turns cannot pick it.',
        action: 'Delete model',
        request: () => this.context.api.request('DELETE', recordPath(MODELS, model.id)),
        done: `LLM model ${model.name} deleted.`,
      });
    }
  }

  private async makeDefault(model: LlmModel): Promise<void> {
    this.busy.set(model.id, 'default');
    this.table.update(this.models);
    try {
      await this.context.api.request('PATCH', recordPath(MODELS, model.id), { body: { is_default: true } });
      this.context.announce(`${model.name} is now the default model.`);
    } catch (failure) {
      this.context.announce(`${model.name} could not be made the default: ${errorMessage(failure)}`);
    } finally {
      this.busy.delete(model.id);
    }
    await this.context.changed();
  }

  /** The create form (`model` null) or the edit form, which reads the record's secret name first. */
  private async edit(model: LlmModel | null): Promise<void> {
    const { api, access } = this.context;
    const superuser = access.canWrite('superuser');
    const [detail, secrets] = await Promise.all([
      model ? api.get<LlmModel>(recordPath(MODELS, model.id)) : Promise.resolve(null),
      superuser ? secretNames(this.context) : Promise.resolve([]),
    ]);
    const saved = await openFormDialog({
      title: detail ? `Edit LLM model ${detail.name}` : 'Add an LLM model',
      submit: detail ? 'Save changes' : 'Create model',
      fields: modelFields(secrets, superuser),
      values: detail
        ? { ...detail }
        : { provider: 'ollama', temperature: 0, model_config: {}, ...(superuser ? { is_default: this.models.length === 0 } : {}) },
      send: async (body) => {
        const sent = await api.request<LlmModel>(detail ? 'PATCH' : 'POST', detail ? recordPath(MODELS, detail.id) : MODELS, { body });
        this.context.announce(detail ? `LLM model ${sent.name} saved.` : `LLM model ${sent.name} created.`);
      },
    });
    if (saved) await this.context.changed();
  }
}
