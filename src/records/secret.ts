import path from 'node:path';
import { ValidationError } from '../kernel/errors.js';
import { admitSecretLocation, refused, type WriteRules } from './record-write-rules.js';
import type { BaseRecord } from './record-collection.port.js';
import type { Filters, RecordKind } from './record-service.js';
import { textMatches } from './text-match.js';

export const SECRET_PROVIDERS = ['environment-variable', 'text-file'] as const;
export type SecretProvider = (typeof SECRET_PROVIDERS)[number];

/**
 * Where a secret's value lives. The value itself is never stored, returned or logged: workers read
 * it at the moment they need it.
 */
export interface SecretFields {
  name: string;
  description: string;
  provider: SecretProvider;
  parameters: { variable?: string; path?: string };
}

export type SecretRecord = BaseRecord & SecretFields;
export type SecretView = SecretRecord & { display: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkParameters({ provider, parameters }: SecretFields): SecretFields['parameters'] {
  if (provider === 'environment-variable') {
    const { variable, ...rest } = parameters;
    if (Object.keys(rest).length > 0 || !variable || !ENV_NAME.test(variable)) {
      throw ValidationError.field(
        'parameters',
        'The environment-variable provider takes {"variable": NAME}, NAME made of letters, digits and "_".',
      );
    }
    return { variable };
  }
  const { path: filePath, ...rest } = parameters;
  if (Object.keys(rest).length > 0 || !filePath || !path.isAbsolute(filePath)) {
    throw ValidationError.field('parameters', 'The text-file provider takes {"path": ABSOLUTE_PATH}.');
  }
  return { path: filePath };
}

/** Whether an LLM model or an MCP server names a secret of this name (its credential). */
export type SecretNameInUse = (name: string) => Promise<boolean>;

/**
 * `inUse`: records name their secret by its name, so a secret created or renamed under a name a
 * record uses decides what that record sends where; that is superuser business, as is what a secret
 * reads (SECRET_ENV_ALLOW and SECRET_FILE_DIRS list exceptions).
 */
export const secretKind = (rules: WriteRules, inUse: SecretNameInUse): RecordKind<SecretRecord, SecretFields, SecretView> => ({
  label: 'secret',
  defaults: () => ({ description: '', provider: 'environment-variable', parameters: {} }),
  writable: ({ name, description, provider, parameters }) => ({ name, description, provider, parameters }),
  toRecord: async (fields, base) => ({ ...base, ...fields, parameters: checkParameters(fields) }),
  async admit({ next, previous, actor }) {
    if (actor.superuser) return next;
    if (previous?.name !== next.name && (await inUse(next.name))) {
      throw refused(
        `name: only a superuser may give a secret the name '${next.name}': an LLM model or MCP server sends the secret of that name.`,
      );
    }
    const moved =
      !previous || previous.provider !== next.provider || JSON.stringify(previous.parameters) !== JSON.stringify(next.parameters);
    if (moved) admitSecretLocation(next, actor, rules);
    return next;
  },
  present: async (records) => records.map((record) => ({ ...record, display: record.name })),
  filter: async (filters: Filters) => (record) =>
    (filters.name === undefined || record.name === filters.name) &&
    (filters.provider === undefined || record.provider === filters.provider) &&
    textMatches(filters.q, record.name, record.description),
});
