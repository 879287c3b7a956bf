import type { Schemas } from '../api/openapi-types.js';
import path from 'node:path';
import { ConflictError, ValidationError } from '../kernel/errors.js';
import { admitSecretLocation, refused } from './record-write-rules.js';
import type { BaseRecord } from './record-collection.port.js';
import type { Filters, RecordKind } from './record-service.js';
import type { KindContext } from './records.js';
import { textMatches } from './text-match.js';

export type SecretProvider = Schemas['SecretProvider'];

/**
 * Where a secret's value lives. The value itself is never stored, returned or logged: workers read
 * it at the moment they need it.
 */
export type SecretFields = Required<Omit<Schemas['SecretInput'], 'id'>>;

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

/** The LLM models and MCP servers that name a secret of this name (their credential), as "LLM model gpt" and the like. */
export type SecretUsers = (name: string) => Promise<string[]>;

/** A secret that records name cannot go or change its name: their requests would fail until someone restored it. */
async function refuseIfUsed(name: string, users: SecretUsers, change: 'renamed' | 'deleted'): Promise<void> {
  const named = await users(name);
  if (named.length > 0) throw new ConflictError(`The secret '${name}' cannot be ${change}: ${named.join(', ')} use it.`);
}

/**
 * `users`: records name their secret by its name, so a secret created or renamed under a name a
 * record uses decides what that record sends where; that is superuser business, as is what a secret
 * reads (SECRET_ENV_ALLOW and SECRET_FILE_DIRS list exceptions). A secret in use is neither renamed
 * nor deleted, by anyone.
 */
export const secretKind = ({
  rules,
  secretUsers: users,
}: Pick<KindContext, 'rules' | 'secretUsers'>): RecordKind<SecretRecord, SecretFields, SecretView> => ({
  label: 'secret',
  defaults: () => ({ description: '', provider: 'environment-variable', parameters: {} }),
  writable: ({ name, description, provider, parameters }) => ({ name, description, provider, parameters }),
  toRecord: async (fields, base) => ({ ...base, ...fields, parameters: checkParameters(fields) }),
  async admit({ next, previous, actor }) {
    if (previous && previous.name !== next.name) await refuseIfUsed(previous.name, users, 'renamed');
    if (actor.superuser) return next;
    if (previous?.name !== next.name && (await users(next.name)).length > 0) {
      throw refused(
        `name: only a superuser may give a secret the name '${next.name}': an LLM model or MCP server sends the secret of that name.`,
      );
    }
    const moved =
      !previous || previous.provider !== next.provider || JSON.stringify(previous.parameters) !== JSON.stringify(next.parameters);
    if (moved) admitSecretLocation(next, actor, rules);
    return next;
  },
  admitDelete: (record) => refuseIfUsed(record.name, users, 'deleted'),
  present: async (records) => records.map((record) => ({ ...record, display: record.name })),
  filter: async (filters: Filters) => (record) =>
    (filters.name === undefined || record.name === filters.name) &&
    (filters.provider === undefined || record.provider === filters.provider) &&
    textMatches(filters.q, record.name, record.description),
});
