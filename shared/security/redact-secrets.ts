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
