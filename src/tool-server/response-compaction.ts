/**
 * Platform answers made to fit an agent's context: list results without empty values and with
 * nested objects reduced to what identifies them, optionally only some fields or a brief form,
 * and, when a page is still over its budget, fewer results with the offset where the rest starts.
 */
export interface CompactOptions {
  /** Keep only these fields of each object (`id` always stays). */
  fields?: string[];
  /** Each object reduced to what identifies it (id, name, display, slug, address...). */
  brief?: boolean;
  /** Largest answer, in characters of compact JSON. */
  budgetChars: number;
  /** The offset the request asked for, so that the next offset can be told. */
  offset?: number;
}

export interface CompactResult {
  data: unknown;
  /** Results in this answer, for a list. */
  returned?: number;
  /** Where the results not shown start, when some were left out or the platform has more pages. */
  nextOffset?: number;
  /** What was left out and how to get it. */
  note?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields that say which object this is, in every Nautobot- or NetBox-style model that has them. */
const IDENTIFYING = [
  'id',
  'display',
  'name',
  'slug',
  'label',
  'address',
  'prefix',
  'vid',
  'cid',
  'asn',
  'model',
  'serial',
  'status',
  'type',
];
const LONG_TEXT = 300;

const size = (value: unknown) => JSON.stringify(value)?.length ?? 0;

/** A nested object as a reference: its id and how it is called; a `{value, label}` choice as its value. */
function reference(value: Json): unknown {
  if ('value' in value && 'label' in value && Object.keys(value).length <= 3) return value.value;
  const kept = Object.fromEntries(
    ['id', 'display', 'name', 'slug', 'address', 'prefix']
      .filter((key) => value[key] !== undefined && value[key] !== null)
      .map((key) => [key, value[key]]),
  );
  return Object.keys(kept).length > 0 ? kept : value;
}

function isEmpty(value: unknown): boolean {
  return (
    value === null ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.values(value).every(isEmpty))
  );
}

/** One result object: empty values dropped, nested objects as references, long texts shortened. */
function cleanObject(object: Json, options: Pick<CompactOptions, 'fields' | 'brief'>): Json {
  const keep = options.fields?.length ? new Set(['id', ...options.fields]) : options.brief ? new Set(IDENTIFYING) : undefined;
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    if ((keep && !keep.has(key)) || isEmpty(value) || (key === 'url' && !keep?.has('url'))) continue;
    if (isObject(value))
      out[key] = key === 'custom_fields' || key === 'config_context' || key === 'local_context_data' ? value : reference(value);
    else if (Array.isArray(value)) out[key] = (value as unknown[]).map((item) => (isObject(item) ? reference(item) : item));
    else if (typeof value === 'string' && value.length > LONG_TEXT) out[key] = `${value.slice(0, LONG_TEXT - 1)}…`;
    else out[key] = value;
  }
  return out;
}

/** The offset a `next` page link carries, when the platform gave one. */
function offsetOf(next: unknown): number | undefined {
  if (typeof next !== 'string') return undefined;
  try {
    const offset = new URL(next, 'http://platform.invalid').searchParams.get('offset');
    return offset !== null && /^\d+$/.test(offset) ? Number(offset) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes a platform answer fit `budgetChars`. Lists (`{count, next, previous, results}` pages or
 * plain arrays) are always cleaned; a single object only when it is over budget. A list still over
 * budget keeps the results that fit and says which offset to ask for next.
 */
export function compactResponse(data: unknown, options: CompactOptions): CompactResult {
  const page = isObject(data) && Array.isArray(data.results) ? data : undefined;
  const items: unknown[] | undefined = page ? (page.results as unknown[]) : Array.isArray(data) ? (data as unknown[]) : undefined;
  if (!items) {
    if (!isObject(data) || (size(data) <= options.budgetChars && !options.fields?.length && !options.brief)) return { data };
    return { data: cleanObject(data, options) };
  }
  const cleaned = items.map((item) => (isObject(item) ? cleanObject(item, options) : item));
  // Page links are replaced by the offset to ask for next, which also holds when results were left out.
  const { next: _next, previous: _previous, ...pageRest } = page ?? {};
  const wrap = (results: unknown[]) => (page ? { ...pageRest, results } : results);
  let kept = cleaned.length;
  if (size(wrap(cleaned)) > options.budgetChars) {
    // The most results whose page fits, found by halving.
    let low = 0;
    let high = cleaned.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (size(wrap(cleaned.slice(0, middle))) <= options.budgetChars) low = middle;
      else high = middle - 1;
    }
    kept = Math.max(low, 1);
  }
  const offset = options.offset ?? 0;
  const count = page && typeof page.count === 'number' ? page.count : undefined;
  const cut = kept < cleaned.length;
  const nextOffset = cut ? offset + kept : page ? offsetOf(page.next) : undefined;
  const total = count !== undefined ? ` of ${count}` : '';
  const note = cut
    ? `showing ${kept}${total} results to stay within the answer budget; ask again with params offset=${nextOffset} and limit=${kept} for the next ones, or narrow with filters, fields or brief`
    : nextOffset !== undefined
      ? `showing ${kept}${total} results; the platform has more: ask again with params offset=${nextOffset}`
      : undefined;
  return {
    data: wrap(cleaned.slice(0, kept)),
    returned: kept,
    ...(nextOffset !== undefined ? { nextOffset } : {}),
    ...(note ? { note } : {}),
  };
}
