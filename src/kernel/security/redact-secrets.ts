/** What stands in a text where a secret was. */
export const REDACTED = '***';

/**
 * Shorter values are left alone: blanking every "ab" of a message would destroy it, and no
 * token, key or password of this service is that short.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * The text with every occurrence of each secret replaced by `***`, longest secret first (so a
 * secret that contains another goes whole). For messages that may echo a credential back:
 * git's output, a provider's error, a tool's failure.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>): string {
  return replaceEach(text, redactableSecrets(secrets));
}

/** `text` with each of `prepared` (redactableSecrets' list) replaced. */
function replaceEach(text: string, prepared: readonly string[]): string {
  return prepared.reduce((out, secret) => out.replaceAll(secret, REDACTED), text);
}

/** The secrets worth redacting (long enough), longest first, each once. */
function redactableSecrets(secrets: Iterable<string | undefined>): string[] {
  const values = [...new Set(secrets)].filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_LENGTH);
  return values.sort((a, b) => b.length - a.length);
}

/**
 * Names of fields whose values are credentials (`password`, `api_key`, `client_secret`, `token`,
 * ...): matched on the name's last word, so `auth_secret_key`, which names a secret record rather
 * than holding a value, is kept.
 */
const SECRET_FIELD = /(?:^|[_-])(?:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key|authorization|credentials?)$/i;

/** Whether a field's value is a credential, by its name (see SECRET_FIELD). */
export function isCredentialField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** A copy of a JSON value with each known secret redacted from its strings and, with `blankFields`, credential-named fields blanked. */
function redactValue<T>(value: T, secrets: Iterable<string | undefined>, blankFields: boolean): T {
  const known = redactableSecrets(secrets);
  // Nothing to find (a server without a secret): the value as it is, not walked for every tool result.
  if (known.length === 0 && !blankFields) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return replaceEach(item, known);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object') {
      return Object.fromEntries(
        Object.entries(item).map(([key, field]) => [key, blankFields && isCredentialField(key) && field !== null ? REDACTED : walk(field)]),
      );
    }
    return item;
  };
  return walk(value) as T;
}

/**
 * A copy of a JSON value (a tool call's arguments) with the values of credential-named fields
 * replaced by `***` and every occurrence of each known secret redacted from the other strings.
 */
export function redactJson<T>(value: T, secrets: Iterable<string | undefined>): T {
  return redactValue(value, secrets, true);
}

/** A copy of a JSON value (what a server answered) with every occurrence of each known secret redacted from its strings. */
export function redactStrings<T>(value: T, secrets: Iterable<string | undefined>): T {
  return redactValue(value, secrets, false);
}

/**
 * `error` itself, with each known secret redacted from its message and stack and from those of its
 * causes: callers still tell it apart by its class, and nothing that logs or shows it shows a secret.
 */
export function redactError<E>(error: E, secrets: Iterable<string | undefined>): E {
  const known = redactableSecrets(secrets);
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    current.message = replaceEach(current.message, known);
    if (current.stack) current.stack = replaceEach(current.stack, known);
  }
  return error;
}
