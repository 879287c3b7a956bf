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
 * Names whose values are credentials, judged on the name's words: camelCase, PascalCase, kebab,
 * snake and dotted names are first put in one form (`clientSecret`, `Client-Secret` and
 * `client.secret` are all `client_secret`). A name is a credential's when its last word is (or
 * ends in) password or passwd (`PGPASSWORD`), is pass or pwd, or is passphrase, passcode, secret(s), token, bearer,
 * credential(s), cookie(s) (so `set_cookie`), authorization, a session id (`sessionid`,
 * `PHPSESSID`), or key after a qualifier (`api_key`, `ssh_key`, `aws_secret_access_key`,
 * `private_key`, `apikey`). Trailing digits are ignored (`password2`).
 */
const SECRET_NAME =
  /(?:^|_)(?:[a-z]*pass(?:word|wd)|pass|pwd|passphrase|passcode|secrets?|[a-z]*token|bearer|credentials?|cookies?|[a-z]*authorization|[a-z]*sess(?:ion)?_?id|(?:api|access|secret|private|ssh|auth|signing|encryption|master|client|app|license|session)key|[a-z\d]+_key)\d*$/;

/**
 * The rule's exceptions, names that read like a credential's and are not: a record's key or a
 * key that is public or names something (`primary_key`, `public_key`, `sort_key`,
 * `idempotency_key`; plain `key` never matched), a page's cursor (`next_page_token`,
 * `NextToken`), and this service's fields that name a secret record rather than hold its value
 * (`auth_secret_key`, `model_secret_key`). Counts of tokens (`max_tokens`, `input_tokens`,
 * `token_count`) never match: the last word is `tokens` or not token at all.
 */
const HARMLESS_NAME =
  /(?:^|_)(?:(?:primary|foreign|public|host|sort|partition|range|row|cache|object|lookup|unique|natural|composite|idempotency|dedup|dedupe|group|routing|translation|message|map|field|column|index|attribute|parent|item|label|tag|metric|search|hash|shard|order|schema|type|name|display|record|custom)_key|(?:page|next|next_page|prev|previous|continuation|pagination|cursor|sync|start)_token)\d*$|^(?:auth|model)_secret_key$/;

/** `accessToken`, `Access-Token`, `access.token` → `access_token`: the form SECRET_NAME reads. */
function nameWords(name: string): string {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z\d]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Names judged so far: field names repeat across objects and calls; bounded, as names come from platforms' answers. */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 4_096;

/** Whether a field's value is a credential, by its name (see SECRET_NAME and HARMLESS_NAME). The one rule of plans, audit entries, tool results, spans and logs. */
export function isCredentialField(name: string): boolean {
  let credential = judged.get(name);
  if (credential === undefined) {
    const words = nameWords(name);
    credential = SECRET_NAME.test(words) && !HARMLESS_NAME.test(words);
    if (judged.size < MAX_JUDGED) judged.set(name, credential);
  }
  return credential;
}

/** A copy of a JSON value with each known secret redacted from its strings and, with `blankFields`, the fields it names blanked. */
function redactValue<T>(value: T, secrets: Iterable<string | undefined>, blankFields?: (name: string) => boolean): T {
  const known = redactableSecrets(secrets);
  // Nothing to find (a server without a secret): the value as it is, not walked for every tool result.
  if (known.length === 0 && !blankFields) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return replaceEach(item, known);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object') {
      // A loop, not fromEntries over entries: a platform's answer goes through here on every request tool call.
      const copy: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(item)) {
        const redacted = blankFields?.(key) && field !== null ? REDACTED : walk(field);
        // An own `__proto__` (JSON can carry one) stays a field, never the copy's prototype.
        if (key === '__proto__')
          Object.defineProperty(copy, key, { value: redacted, enumerable: true, writable: true, configurable: true });
        else copy[key] = redacted;
      }
      return copy;
    }
    return item;
  };
  return walk(value) as T;
}

/**
 * A copy of a JSON value (a tool call's arguments, a plan, a platform's answer) with the values of
 * credential-named fields replaced by `***` (and those of `alsoNamed`, names that hold a
 * credential only where the caller knows they do: a token's `key`) and every occurrence of each
 * known secret redacted from the other strings.
 */
export function redactJson<T>(value: T, secrets: Iterable<string | undefined>, alsoNamed?: ReadonlySet<string>): T {
  return redactValue(value, secrets, alsoNamed ? (name) => alsoNamed.has(name) || isCredentialField(name) : isCredentialField);
}

/** A copy of a JSON value (what a server answered) with every occurrence of each known secret redacted from its strings. */
export function redactStrings<T>(value: T, secrets: Iterable<string | undefined>): T {
  return redactValue(value, secrets);
}

/**
 * `fields` itself (a log line's or a span's fields), each credential-named one's value replaced
 * by `***` and those inside its other values blanked (see redactJson). In place: a log line
 * carries symbol-keyed fields of its logger that a copy would lose.
 */
export function redactFields<F extends Record<string, unknown>>(fields: F): F {
  const record: Record<string, unknown> = fields;
  for (const [name, value] of Object.entries(record)) {
    if (value === null || value === undefined) continue;
    if (isCredentialField(name)) record[name] = REDACTED;
    // Plain objects and arrays only: an error or a date is written by the logger's own format.
    else if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) record[name] = redactJson(value, []);
  }
  return fields;
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
