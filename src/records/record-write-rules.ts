import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Actor } from './auth/permissions.js';
import { PermissionDeniedError } from '../kernel/errors.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';

/**
 * What a writer short of superuser may still do, as the operator configured it (every list empty
 * by default): internal destinations (OUTBOUND_ALLOW), environment variables and file folders a
 * secret may read (SECRET_ENV_ALLOW, SECRET_FILE_DIRS), stdio commands (STDIO_COMMANDS_ALLOW).
 */
export interface WriteRules {
  outbound: OutboundPolicy;
  secretEnvAllow: ReadonlySet<string>;
  /** Absolute, normalised folders. */
  secretFileDirs: readonly string[];
  stdioCommandsAllow: ReadonlySet<string>;
}

export const NO_EXCEPTIONS: WriteRules = {
  outbound: OutboundPolicy.fromList([]),
  secretEnvAllow: new Set(),
  secretFileDirs: [],
  stdioCommandsAllow: new Set(),
};

/** The rules from the parsed configuration (`Config['security']`). */
export function writeRules(security: {
  outboundAllow: string[];
  secretEnvAllow: string[];
  secretFileDirs: string[];
  stdioCommandsAllow: string[];
}): WriteRules {
  return {
    outbound: OutboundPolicy.fromList(security.outboundAllow),
    secretEnvAllow: new Set(security.secretEnvAllow),
    secretFileDirs: security.secretFileDirs,
    stdioCommandsAllow: new Set(security.stdioCommandsAllow),
  };
}

/** Stored on records that send requests (and a secret) somewhere of their choosing. */
export interface TrustedDestination {
  /**
   * The destination fields were last set by a superuser, so it may be an internal address. Set
   * on every write; never shown, never written by clients.
   */
  destination_trusted?: boolean;
}

/** A record that sends its secret to a destination it chooses (an LLM model, an MCP server). */
export interface SecretCarrier<S> {
  /** "LLM model", for messages. */
  label: string;
  /** The field naming the secret. */
  secretField: keyof S & string;
  /** The fields that decide where requests (and the secret) go; a superuser who sends one vouches for the destination. */
  destinationFields: ReadonlyArray<keyof S & string>;
  /** What of those fields decides the destination, when not all of each (a route key among options). */
  destination?: (record: S) => unknown;
  /** The URL the record chooses, with the field it comes from; null when a configured default or no URL applies. */
  url(record: S): { field: string; value: string } | null;
}

/**
 * What a write brings: the record to store, the stored one it replaces, the fields the client sent,
 * who writes, and whether the record holds its kind's exclusive flag (`is_default`) before and after.
 */
export interface WriteContext<S> {
  next: S;
  previous?: S;
  sent: readonly string[];
  actor: Actor;
  flagged: { before: boolean; after: boolean };
}

export const refused = (message: string) => new PermissionDeniedError(message);

/**
 * A flag that lets a record do more (an MCP server's `sampling`): only a superuser turns it on.
 * Anyone may turn it off; a writer short of superuser who leaves it out of a PUT keeps it, and one
 * who points the record elsewhere turns it off, as the superuser allowed it for the old destination.
 */
export function admitSuperuserFlag<S extends TrustedDestination>(
  carrier: SecretCarrier<S>,
  field: keyof S & string,
  write: Omit<WriteContext<S>, 'flagged'>,
): S {
  const { next, previous, sent, actor } = write;
  if (actor.superuser) return next;
  const was = previous?.[field] === true;
  const wanted = sent.includes(field) ? next[field] === true : was;
  if (wanted && !was) throw refused(`${field}: only a superuser may turn on ${field} for an ${carrier.label}.`);
  return { ...next, [field]: wanted && !destinationChanged(carrier, write) };
}

/**
 * Fields of a record a superuser set up (its destination vouched for) that only a superuser changes:
 * a writer short of superuser who sends another value is refused, and one who leaves the field out
 * of a PUT keeps it, so a replace never drops what a superuser chose (a system prompt every chat on
 * the model reads, the secret it sends).
 */
export function keepSuperuserFields<S extends TrustedDestination>(
  label: string,
  fields: ReadonlyArray<keyof S & string>,
  { next, previous, sent, actor }: Omit<WriteContext<S>, 'flagged'>,
): S {
  if (actor.superuser || !previous?.destination_trusted) return next;
  const kept = { ...next };
  for (const field of fields) {
    if (!sent.includes(field)) kept[field] = previous[field];
    else if (!isDeepStrictEqual(next[field], previous[field])) {
      throw refused(`${field}: only a superuser may change the ${field} of an ${label} a superuser set up.`);
    }
  }
  return kept;
}

/** The write creates the record or changes where its requests (and its secret) go. */
export function destinationChanged<S>(carrier: SecretCarrier<S>, { next, previous }: Pick<WriteContext<S>, 'next' | 'previous'>): boolean {
  const destination = carrier.destination ?? ((record: S) => carrier.destinationFields.map((field) => record[field]));
  return !previous || !isDeepStrictEqual(destination(previous), destination(next));
}

/**
 * Superuser-only rules of a record carrying a secret. A superuser may do anything, and writing a
 * destination field vouches for it (internal addresses allowed at request time). Anyone else may
 * not name a secret, may not point the record at an internal address the policy does not allow,
 * and changing where the record's requests go clears its secret reference, so a secret never
 * follows a destination its owner did not choose.
 */
export async function admitSecretCarrier<S extends TrustedDestination>(
  carrier: SecretCarrier<S>,
  { next, previous, sent, actor }: Omit<WriteContext<S>, 'flagged'>,
  rules: WriteRules,
): Promise<S> {
  if (actor.superuser) {
    const vouched = !previous || carrier.destinationFields.some((field) => sent.includes(field));
    return { ...next, destination_trusted: vouched || previous.destination_trusted === true };
  }
  const secret = next[carrier.secretField];
  if (secret && (!previous || previous[carrier.secretField] !== secret)) {
    throw refused(`Only a superuser may name a secret on an ${carrier.label} (${carrier.secretField}).`);
  }
  if (!destinationChanged(carrier, { next, previous })) return { ...next, destination_trusted: previous?.destination_trusted === true };
  const url = carrier.url(next);
  if (url && (await rules.outbound.refusesUrl(url.value))) {
    throw refused(
      `${url.field}: only a superuser may point an ${carrier.label} at an internal address (loopback, private, link-local or metadata range); OUTBOUND_ALLOW lists exceptions.`,
    );
  }
  return { ...next, destination_trusted: false, [carrier.secretField]: '' };
}

/** Starting a program on the workers is superuser business, unless the operator allows the command. */
export function admitStdioCommand(command: string, actor: Actor, rules: WriteRules): void {
  if (actor.superuser || rules.stdioCommandsAllow.has(command)) return;
  throw refused(
    `command: only a superuser may set a stdio MCP server's command and arguments (STDIO_COMMANDS_ALLOW lists the commands others may use).`,
  );
}

/** Where a secret's value is read from. */
export interface SecretLocation {
  provider: 'environment-variable' | 'text-file';
  parameters: { variable?: string; path?: string };
}

/** Only a superuser decides what a secret reads, unless the operator allows that variable or folder. */
export function admitSecretLocation({ provider, parameters }: SecretLocation, actor: Actor, rules: WriteRules): void {
  if (actor.superuser) return;
  if (provider === 'environment-variable') {
    if (rules.secretEnvAllow.has(parameters.variable ?? '')) return;
    throw refused(
      `parameters: only a superuser may make a secret read environment variable ${parameters.variable ?? ''} (SECRET_ENV_ALLOW lists the variables others may name).`,
    );
  }
  const file = path.resolve(parameters.path ?? '/');
  if (rules.secretFileDirs.some((dir) => file.startsWith(`${dir}${path.sep}`))) return;
  throw refused(`parameters: only a superuser may make a secret read ${file} (SECRET_FILE_DIRS lists the folders others may name).`);
}
