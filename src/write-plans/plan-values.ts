import { isObject } from '../endpoint-search/openapi-refs.js';

/** Longest value shown in a plan; a longer one (a config context) is cut with an ellipsis. */
const SHOWN_CHARS = 200;

const isChoice = (value: Record<string, unknown>) => 'value' in value && 'label' in value && !('id' in value);

/**
 * A value as compared: a related object by its id, a choice (`{value, label}`) by its value, lists
 * and objects item by item. The platform answers related objects nested; a request names them by id.
 */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (isObject(value)) {
    if (isRelated(value)) return String(value.id);
    if (isChoice(value)) return comparable(value.value);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, comparable(item)]));
  }
  return value ?? null;
}

const numeric = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !isNaN(Number(value)));

/** A related object as the platform answers it, nested with its id. */
const isRelated = (value: unknown) => isObject(value) && (typeof value.id === 'string' || typeof value.id === 'number');

/**
 * Whether two values are the same to the platform: related objects by id, `5` and `"5"` alike, a
 * blank text and null alike, objects key by key, a list of related objects (tags, VLANs) as a set,
 * since the platform answers it in an order of its own, and any other list (NTP servers in a config
 * context, a model's stop sequences) in order, where a reordering is a change.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  const left = comparable(a);
  const right = comparable(b);
  if (left === right) return true;
  if ((left === null || left === '') && (right === null || right === '')) return true;
  if (numeric(left) && numeric(right)) return Number(left) === Number(right);
  if (Array.isArray(left) && Array.isArray(right)) {
    if (left.length !== right.length) return false;
    const asSet = [a, b].some((list) => Array.isArray(list) && list.some(isRelated));
    if (!asSet) return left.every((item, index) => sameValue(item, right[index]));
    const unmatched: unknown[] = [...(right as unknown[])];
    return left.every((item) => {
      const at = unmatched.findIndex((other) => sameValue(item, other));
      return at >= 0 && unmatched.splice(at, 1).length === 1;
    });
  }
  if (isObject(left) && isObject(right)) {
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    return [...keys].every((key) => sameValue(left[key], right[key]));
  }
  return false;
}

/** A value in words: related objects by their display, choices by their value, lists joined, null as "(none)". */
export function shown(value: unknown): string {
  let words: string;
  if (value === null || value === undefined) words = '(none)';
  else if (value === '') words = '(blank)';
  else if (typeof value === 'string') words = value;
  else if (typeof value === 'number' || typeof value === 'boolean') words = String(value);
  else if (Array.isArray(value)) words = value.length ? value.map(shown).join(', ') : '(none)';
  else if (isObject(value) && isChoice(value)) words = shown(value.value);
  else if (isObject(value)) {
    const name = ['display', 'name', 'slug', 'label'].map((key) => value[key]).find((item) => typeof item === 'string' && item !== '');
    words = typeof name === 'string' ? name : JSON.stringify(value);
  } else words = typeof value === 'bigint' ? value.toString() : typeof value;
  return words.length > SHOWN_CHARS ? `${words.slice(0, SHOWN_CHARS - 1)}…` : words;
}

/** A field of an object, `custom_fields.owner` read inside `custom_fields`. */
export function fieldOf(object: Record<string, unknown>, field: string): unknown {
  let value: unknown = object;
  for (const part of field.split('.')) value = isObject(value) ? value[part] : undefined;
  return value;
}
