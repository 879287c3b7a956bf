import type { EndpointDocument } from './endpoint-document.js';
import { endpointShape } from './endpoint-shape.js';
import { singular, terms, words } from '../kernel/text.js';
import { STOP_WORDS } from './vocabulary.js';

/** A word in at most this many resources says which resource it is about. */
const MAX_RESOURCES = 3;

/** `decommissioning` and `decommissioned` both mean `decommission`; `failed` means `fail`. */
function withoutVerbEnding(term: string): string {
  return term.replace(/(?:ing|ed)$/, '').length >= 4 ? term.replace(/(?:ing|ed)$/, '') : term;
}

/**
 * The platform's own words for its resources, read from its description: each resource's field
 * names, model title, enum values and labels (`failed` is a job result's status, `ssid` a wireless
 * LAN's field, `decommissioning` a device status). A word found in few resources points at them,
 * so an area nobody wrote synonyms for is still found by the words its data uses.
 */
export class SpecVocabulary {
  private readonly meanings = new Map<string, string[]>();
  /** Field names of several words (`upstream_speed`, `commit_rate`), keyed by their singular words joined with a space. */
  private readonly phrases = new Map<string, string[]>();
  /** Per resource, what its many-valued fields hold (a user's `groups`, an interface's `tagged_vlans`), singular. */
  private readonly many = new Map<string, Set<string>>();

  constructor(endpoints: EndpointDocument[]) {
    const byTerm = new Map<string, Set<string>>();
    const byPhrase = new Map<string, Set<string>>();
    const pathWords = new Set<string>();
    for (const endpoint of endpoints) {
      const shape = endpointShape(endpoint);
      for (const term of [...shape.resource, ...shape.action, ...shape.group]) pathWords.add(term);
      const resource = shape.resource.at(-1);
      if (!resource || shape.kind === 'action' || (endpoint.method !== 'GET' && endpoint.method !== 'POST')) continue;
      for (const term of [...endpoint.vocabulary.flatMap(terms), ...endpoint.bodyFields.flatMap(terms)]) {
        if (term.length < 3 || /^\d/.test(term) || STOP_WORDS.has(term)) continue;
        const key = withoutVerbEnding(term);
        let resources = byTerm.get(key);
        if (!resources) byTerm.set(key, (resources = new Set()));
        resources.add(resource);
      }
      for (const field of endpoint.bodyFields) {
        const last = words(field).at(-1);
        if (last && singular(last) !== last) {
          let held = this.many.get(resource);
          if (!held) this.many.set(resource, (held = new Set()));
          held.add(singular(last));
        }
        const parts = words(field).map(singular);
        if (parts.length < 2 || parts.length > 3 || parts.some((part) => STOP_WORDS.has(part) || part === 'id' || /^\d/.test(part)))
          continue;
        const key = parts.join(' ');
        let resources = byPhrase.get(key);
        if (!resources) byPhrase.set(key, (resources = new Set()));
        resources.add(resource);
      }
    }
    // A field name that is also a path word (`mac_address` where MAC addresses have their own path) is found by the path.
    for (const [phrase, resources] of byPhrase) {
      if (resources.size <= MAX_RESOURCES && !pathWords.has(phrase.replace(/ /g, ''))) this.phrases.set(phrase, [...resources]);
    }
    for (const [term, resources] of byTerm) {
      if (resources.size <= MAX_RESOURCES && !pathWords.has(term)) this.meanings.set(term, [...resources]);
    }
  }

  /** The resources (path words such as `jobresult`) a word of a request points at, if it is distinctive. */
  meaning(term: string): string[] | undefined {
    return this.meanings.get(withoutVerbEnding(term));
  }

  /** True when a resource has a many-valued field of the other (`user`, `group`: a user's `groups`): adding one to the other changes its membership. */
  holdsMany(resource: string, held: string): boolean {
    return this.many.get(resource)?.has(held) ?? false;
  }

  /** The resources whose field these words name (`upstream speed` → `circuittermination`), for two or three singular words. */
  fieldOf(phraseWords: string[]): string[] | undefined {
    return this.phrases.get(phraseWords.join(' '));
  }
}
