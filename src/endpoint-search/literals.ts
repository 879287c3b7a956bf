/**
 * Values written into a request (an address, a network, a MAC, an interface or host name, an AS
 * number, a VLAN id, a rack unit, a UUID) and the resources they identify, so that "what's at
 * 192.0.2.55" finds the IP addresses and "shut xe-0/0/5" the interfaces although neither names
 * its resource.
 */
export type LiteralKind = 'id' | 'ip-address' | 'network' | 'mac' | 'interface' | 'asn' | 'vlan-id' | 'rack-unit' | 'filter' | 'name';

export interface Literal {
  kind: LiteralKind;
  text: string;
  start: number;
  end: number;
}

/**
 * Path words each kind points at, in the vocabulary's `means` syntax (alternatives joined by `|`,
 * best first). Names have none of their own: what they name is read from the words around them.
 */
export const LITERAL_MEANS: Record<LiteralKind, string | undefined> = {
  id: undefined,
  'ip-address': 'ipaddress|ip',
  network: 'prefix|aggregate|iprange',
  mac: 'macaddress|interface',
  interface: 'interface',
  asn: 'asn',
  'vlan-id': 'vlan',
  'rack-unit': 'rack|rackreservation|elevation',
  filter: undefined,
  name: undefined,
};

const IPV4 = String.raw`(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}`;
const IPV6 = String.raw`(?:[0-9a-f]{1,4}:){1,7}(?::|(?::[0-9a-f]{1,4}){1,6}|[0-9a-f]{1,4})|::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4}`;
const INTERFACE_NAMES = [
  'ge',
  'xe',
  'et',
  'fe',
  'ae',
  'gi',
  'te',
  'fo',
  'hu',
  'tw',
  'po',
  'lo',
  'em',
  'irb',
  'swp',
  'bond',
  'eth',
  'eno',
  'ens',
  'enp',
  'mgmt',
  'ethernet',
  'gigabitethernet',
  'tengigabitethernet',
  'fastethernet',
  'fortygigabitethernet',
  'hundredgige',
  'twentyfivegige',
  'port-channel',
  'loopback',
  'management',
].join('|');

/** Most specific first: a span taken by one kind is not read again by a later one. */
const PATTERNS: Array<[LiteralKind, RegExp]> = [
  ['id', /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi],
  ['filter', /\b[a-z_]+(?:__[a-z]+)?=\S+/gi],
  ['mac', /\b[0-9a-f]{2}([:-])[0-9a-f]{2}(?:\1[0-9a-f]{2}){4}\b|\b[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}\b/gi],
  ['network', new RegExp(String.raw`\b${IPV4}\/\d{1,2}\b`, 'gi')],
  ['network', new RegExp(String.raw`(?<![\w:])(?:${IPV6})\/\d{1,3}\b`, 'gi')],
  ['ip-address', new RegExp(String.raw`\b${IPV4}\b`, 'g')],
  ['ip-address', new RegExp(String.raw`(?<![\w:])(?:${IPV6})(?![\w:])`, 'gi')],
  // A bare prefix length ("carve a /26") asks for a network too.
  ['network', /(?<![\w/])\/\d{1,3}\b/g],
  // "10.x", "192.168.*": a network written loosely.
  ['network', /\b\d{1,3}(?:\.(?:\d{1,3}|x|\*))*\.(?:x|\*)(?![\w*])/gi],
  ['interface', new RegExp(String.raw`\b(?:${INTERFACE_NAMES})-?\d+(?:[/:.]\d+)*\b`, 'gi')],
  // "AS 65010" only in capitals: "as 20 devices" is English.
  ['asn', /\b(?:AS|ASN) \d{1,10}\b/g],
  ['asn', /\b(?:as|asn)\d{1,10}\b/gi],
  ['vlan-id', /(?<=\bvlan(?: id)? )\d{1,4}\b|(?<=\bvid )\d{1,4}\b/gi],
  ['rack-unit', /\bU ?\d{1,2}(?:\s*(?:-|to|through|thru)\s*U? ?\d{1,2})?\b|\b\d{1,2} ?(?:U|RU)\b/g],
  // "units 30 to 32", "positions 10-12": a span of rack units in words.
  ['rack-unit', /\b(?:units?|positions?|RUs?|slots?)\s+\d{1,2}\s*(?:-|to|through|thru)\s*\d{1,2}\b/gi],
];

/** A token with letters and digits (`core-sw-02`, `AMS1`, `R12`, `edge01`) names one object. */
const TOKEN = /\b[a-z0-9]+(?:[-_.][a-z0-9]+)*\b/gi;
/** Sizes and speeds (`100G`, `48U` is a rack unit and read before) are values, not names. */
const QUANTITY = /^\d+(?:k|m|g|t|kb|mb|gb|tb|mbps|gbps|ghz|mhz|w|kw|v|a|x|gig|th|st|nd|rd)$/i;

function overlaps(found: Literal[], start: number, end: number): boolean {
  return found.some((literal) => start < literal.end && end > literal.start);
}

/**
 * Finds the literals of a request. `isWord` tells words the API description or the vocabulary
 * uses (`l2vpn`, `ipv6`, `802`): those stay words, not names.
 */
export function findLiterals(query: string, isWord: (word: string) => boolean): Literal[] {
  const found: Literal[] = [];
  for (const [kind, pattern] of PATTERNS) {
    for (const match of query.matchAll(pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (!overlaps(found, start, end)) found.push({ kind, text: match[0], start, end });
    }
  }
  for (const match of query.matchAll(TOKEN)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    const text = match[0];
    const lower = text.toLowerCase();
    if (!/[a-z]/i.test(text) || !/\d/.test(text) || QUANTITY.test(text) || isWord(lower) || isWord(lower.replace(/[-_.]/g, ''))) continue;
    if (!overlaps(found, start, end)) found.push({ kind: 'name', text, start, end });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The request with its literals blanked out, so that their digits and fragments are not read as words. */
export function withoutLiterals(query: string, literals: Literal[]): string {
  let out = query;
  for (const literal of literals) out = `${out.slice(0, literal.start)}${' '.repeat(literal.end - literal.start)}${out.slice(literal.end)}`;
  return out;
}
