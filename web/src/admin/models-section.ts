import { ENUMS, type Schemas } from '../../../src/api/openapi-types.js';
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

const PROVIDER_LABELS: Record<Provider, string> = {
  ollama: 'Ollama',
  openai: 'OpenAI or OpenAI-compatible',
  azure_ai: 'Azure OpenAI',
  anthropic: 'Anthropic',
  huggingface: 'Hugging Face',
  custom: 'Custom handler',
};

/** How each provider uses the endpoint and the secret (README, "Chat"). */
const ENDPOINT: Record<Provider, { label: string; hint: string }> = {
  ollama: { label: 'Endpoint (optional)', hint: 'Empty: the worker’s OLLAMA_HOST.' },
  openai: { label: 'Endpoint (optional)', hint: 'Any OpenAI-compatible server, ending in /v1; empty: api.openai.com.' },
  azure_ai: { label: 'Azure OpenAI endpoint', hint: 'https://NAME.openai.azure.com; the deployment is this model’s name.' },
  anthropic: { label: 'Endpoint (optional)', hint: 'Empty: api.anthropic.com.' },
  huggingface: {
    label: 'Inference Endpoint (optional)',
    hint: 'A dedicated Inference Endpoint or TGI server; empty: Inference Providers for the repository named by this model.',
  },
  custom: { label: 'Endpoint', hint: 'Handed to the custom handler.' },
};
const SECRET: Record<Provider, { label: string; hint: string }> = {
  ollama: { label: 'Secret (optional)', hint: 'Sent as a bearer token, for an Ollama behind a proxy.' },
  openai: { label: 'API key secret', hint: 'Optional for a local server given an endpoint.' },
  azure_ai: {
    label: 'API key secret',
    hint: 'The API key, or JSON {"tenant_id", "client_id", "client_secret"} for Microsoft Entra sign-in.',
  },
  anthropic: { label: 'API key secret', hint: 'Sent as x-api-key.' },
  huggingface: { label: 'Hugging Face token secret', hint: 'Sent as a bearer token.' },
  custom: { label: 'Credential secret (optional)', hint: 'Handed to the custom handler.' },
};

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
    { name: 'provider', label: 'Provider', kind: 'select', options: PROVIDERS.map((value) => ({ value, label: PROVIDER_LABELS[value] })) },
    { name: 'description', label: 'Description', kind: 'text', maxLength: 255 },
    ...perProvider((provider) => ({ name: 'hosted_endpoint', kind: 'url', ...ENDPOINT[provider], placeholder: 'https://' })),
    {
      name: 'api_version',
      label: 'API version',
      kind: 'text',
      hint: 'For example 2024-10-21.',
      shown: providerIs('azure_ai'),
      whenHidden: '',
    },
    ...(superuser
      ? perProvider((provider) => ({ name: 'model_secret_key', kind: 'text', ...SECRET[provider], suggestions: secrets }))
      : []),
    ...perProvider((provider) => ({
      name: 'temperature',
      label: 'Temperature',
      kind: 'number',
      min: 0,
      max: provider === 'anthropic' ? 1 : 2,
      step: 0.1,
      hint: provider === 'anthropic' ? '0 to 1 for Anthropic.' : '0 to 2.',
    })),
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
      cellContent((model) => PROVIDER_LABELS[model.provider] ?? model.provider),
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
