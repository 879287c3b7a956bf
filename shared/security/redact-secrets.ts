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
  const values = [...new Set(secrets)].filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_LENGTH);
  return values.sort((a, b) => b.length - a.length).reduce((out, secret) => out.replaceAll(secret, REDACTED), text);
}

/**
 * Names of fields whose values are credentials (`password`, `api_key`, `client_secret`, `token`,
 * ...): matched on the name's last word, so `auth_secret_key`, which names a secret record rather
 * than holding a value, is kept.
 */
const SECRET_FIELD = /(?:^|[_-])(?:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key|authorization|credentials?)$/i;

/**
 * A copy of a JSON value (a tool call's arguments) with the values of credential-named fields
 * replaced by `***` and every occurrence of each known secret redacted from the other strings.
 */
export function redactJson<T>(value: T, secrets: Iterable<string | undefined>): T {
  const known = [...secrets];
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return redactSecrets(item, known);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object') {
      return Object.fromEntries(
        Object.entries(item).map(([key, field]) => [key, SECRET_FIELD.test(key) && field !== null ? REDACTED : walk(field)]),
      );
    }
    return item;
  };
  return walk(value) as T;
}
