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

/** English function words: they say nothing about what a text is about. */
export const ENGLISH_STOP_WORDS = new Set(
  (
    'a an the and or of to in into on onto at by for from with without within inside under over per via as is are be been being was were ' +
    'it its this that these those there here my our your their me we i you us them he she they his her what which who whom whose when where ' +
    'why how many much some any all every each please can could would should will shall may might must do does did done just also only have has had got ' +
    'then than so such about across against between both either neither nor not no yes if else up down out off again further once ' +
    'currently already still now today'
  ).split(' '),
);

/** Terms of a text without English function words, as the knowledge base reads questions and passages. */
export function contentTerms(value: string): string[] {
  return words(value)
    .filter((word) => !ENGLISH_STOP_WORDS.has(word))
    .map(singular);
}
