/** Word handling shared by the endpoint documents and the queries, so both sides agree. */

/** Lower-case words; camelCase, snake_case, kebab-case and dotted names split apart. */
export function words(value: string): string[] {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const KEEP_S = /(ss|us|is|sis|ics|ws)$/;

/** English plural to singular, good enough for API resource names (prefixes, addresses, policies). */
export function singular(word: string): string {
  if (/^(ip|vm|ap|rd|rt|as|pc)s$/.test(word)) return word.slice(0, -1);
  if (word.length <= 3 || KEEP_S.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes|zes|uses)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** Singular words of a text: the terms both the index and the queries use. */
export function terms(value: string): string[] {
  return words(value).map(singular);
}
