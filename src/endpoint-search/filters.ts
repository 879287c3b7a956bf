/**
 * List filters as Django-style platforms (Nautobot, NetBox) spell them: a field name (`site`,
 * `site_id`) and lookup variants with a suffix (`name__ic`, `vid__gte`). These helpers sort the
 * few filters an agent needs from the hundreds a list may declare.
 */

/** Query parameters that page, order or shape an answer rather than select objects. */
export const RESPONSE_PARAMETERS = new Set([
  'limit',
  'offset',
  'page',
  'cursor',
  'per_page',
  'page_size',
  'ordering',
  'sort',
  'format',
  'brief',
  'fields',
  'omit',
  'exclude',
  'include',
  'depth',
  'exclude_m2m',
]);

/** What the usual lookup suffixes do. */
export const LOOKUP_MEANINGS: Record<string, string> = {
  n: 'not equal',
  ic: 'contains, case-insensitive',
  nic: 'does not contain',
  ie: 'equals, case-insensitive',
  nie: 'not equal, case-insensitive',
  isw: 'starts with',
  nisw: 'does not start with',
  iew: 'ends with',
  niew: 'does not end with',
  re: 'regular expression',
  nre: 'does not match the regular expression',
  ire: 'regular expression, case-insensitive',
  nire: 'does not match, case-insensitive',
  gt: 'greater than',
  gte: 'greater than or equal',
  lt: 'less than',
  lte: 'less than or equal',
  empty: 'is empty (true/false)',
  regex: 'regular expression',
};

/** `name__ic` → `{ base: 'name', lookup: 'ic' }`; a name without a suffix has no lookup. */
export function splitLookup(name: string): { base: string; lookup?: string } {
  const at = name.lastIndexOf('__');
  if (at <= 0) return { base: name };
  return { base: name.slice(0, at), lookup: name.slice(at + 2) };
}

/** Filters that only exist for bookkeeping: never among the main ones. */
const BOOKKEEPING = /^(id|created|last_updated|created_by_request|updated_by_request|modified_by_request|changed_object_id)$/;

const singularOf = (name: string) => name.replace(/s$/, '');

/**
 * The filters a list is most often narrowed by: `q` (free text) and `name` first, then the
 * filters that match what a create must write, then what it may write, in its order (`site`,
 * `status`...), then other plain filters. `site` is preferred over `site_id` when both exist (it
 * also takes a name or slug).
 */
export function mainFilters(parameters: string[], create: { fields: string[]; required: string[] }, max = 8): string[] {
  const plain = parameters.filter((name) => !RESPONSE_PARAMETERS.has(name) && !splitLookup(name).lookup && !BOOKKEEPING.test(name));
  const available = new Set(plain);
  const picked: string[] = [];
  const take = (name: string | undefined) => {
    if (name && available.has(name) && !picked.includes(name) && !(name.endsWith('_id') && picked.includes(name.slice(0, -3))))
      picked.push(name);
  };
  take('q');
  take('name');
  for (const field of [...create.required, ...create.fields]) {
    if (picked.length >= max) break;
    take(
      available.has(field)
        ? field
        : available.has(singularOf(field))
          ? singularOf(field)
          : available.has(`${field}_id`)
            ? `${field}_id`
            : undefined,
    );
  }
  for (const name of plain) {
    if (picked.length >= max) break;
    if (!(name.endsWith('_id') && available.has(name.slice(0, -3)))) take(name);
  }
  return picked.slice(0, max);
}
