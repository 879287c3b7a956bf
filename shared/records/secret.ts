import path from 'node:path';
import { ValidationError } from '../errors.js';
import { admitSecretLocation, type WriteRules } from '../security/record-write-rules.js';
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
      throw ValidationError.field('parameters', 'The environment-variable provider takes {"variable": NAME}, NAME made of letters, digits and "_".');
    }
    return { variable };
  }
  const { path: filePath, ...rest } = parameters;
  if (Object.keys(rest).length > 0 || !filePath || !path.isAbsolute(filePath)) {
    throw ValidationError.field('parameters', 'The text-file provider takes {"path": ABSOLUTE_PATH}.');
  }
  return { path: filePath };
}

export const secretKind = (rules: WriteRules): RecordKind<SecretRecord, SecretFields, SecretView> => ({
  label: 'secret',
  defaults: () => ({ description: '', provider: 'environment-variable', parameters: {} }),
  writable: ({ name, description, provider, parameters }) => ({ name, description, provider, parameters }),
  toRecord: async (fields, base) => ({ ...base, ...fields, parameters: checkParameters(fields) }),
  async admit({ next, previous, actor }) {
    if (actor.superuser) return next;
    const moved = !previous || previous.provider !== next.provider || JSON.stringify(previous.parameters) !== JSON.stringify(next.parameters);
    if (moved) admitSecretLocation(next, actor, rules);
    return next;
  },
  present: async (records) => records.map((record) => ({ ...record, display: record.name })),
  filter: async (filters: Filters) => (record) =>
    (filters.name === undefined || record.name === filters.name) &&
    (filters.provider === undefined || record.provider === filters.provider) &&
    textMatches(filters.q, record.name, record.description),
});
