import { isObject } from '../endpoint-search/openapi-refs.js';
import { singular, words } from '../kernel/text.js';

/** Words written in capitals (and their plurals: VLANs, IPs). */
const ACRONYMS = new Set([
  'api',
  'asn',
  'cid',
  'fhrp',
  'ike',
  'ip',
  'ipsec',
  'kb',
  'l2vpn',
  'lan',
  'llm',
  'mac',
  'mcp',
  'rd',
  'rir',
  'rt',
  'ssid',
  'url',
  'vdc',
  'vlan',
  'vm',
  'vpn',
  'vrf',
]);

function cased(word: string): string {
  if (ACRONYMS.has(word)) return word.toUpperCase();
  if (word.endsWith('s') && ACRONYMS.has(word.slice(0, -1))) return `${word.slice(0, -1).toUpperCase()}s`;
  return word;
}

export interface ResourceNames {
  one: string;
  many: string;
}

/**
 * How an endpoint's objects are called: the path segment of its resource (`/api/ipam/vlans/{id}/` →
 * VLAN, VLANs; `/api/dcim/device-types/` → device type, device types; an action path names the
 * resource it acts on).
 */
export function resourceNames(path: string): ResourceNames {
  const segments = path.split('/').filter(Boolean);
  const firstParameter = segments.findIndex((segment) => segment.includes('{'));
  const literal = (firstParameter < 0 ? segments : segments.slice(0, firstParameter)).at(-1) ?? 'object';
  const parts = words(literal);
  const last = parts.at(-1) ?? 'object';
  return {
    one: [...parts.slice(0, -1), singular(last)].map(cased).join(' '),
    many: parts.map(cased).join(' '),
  };
}

/** `1 device`, `3 devices`. */
export function counted(count: number, names: ResourceNames): string {
  return `${count} ${count === 1 ? names.one : names.many}`;
}

/** What names a new object, in the order platforms' objects are usually known by. */
const NAMING_FIELDS = ['name', 'prefix', 'address', 'model', 'cid', 'label', 'username', 'slug', 'vid', 'asn'];

/** What names an object to be created, from its body ('' when nothing does). */
export function newObjectName(item: unknown): string {
  if (!isObject(item)) return '';
  const field = NAMING_FIELDS.find((name) => typeof item[name] === 'string' || typeof item[name] === 'number');
  return field ? String(item[field]) : '';
}

/** How a person knows an object the platform answered: its display, else what names it, else its id ('' when nothing does). */
export function displayOf(object: Record<string, unknown>): string {
  if (typeof object.display === 'string' && object.display) return object.display;
  const id = typeof object.id === 'string' || typeof object.id === 'number' ? `#${object.id}` : '';
  return newObjectName(object) || id;
}
