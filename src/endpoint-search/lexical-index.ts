import type { EndpointDocument } from './endpoint-document.js';
import { endpointShape, type EndpointShape } from './endpoint-shape.js';
import type { QueryGroup } from './query-analysis.js';
import { distance } from 'fastest-levenshtein';
import { terms } from '../kernel/text.js';

/**
 * BM25F over the fields of an endpoint. The path structure carries most of the meaning (many
 * descriptions are generic docstrings), so the resource and action words weigh most, then the
 * summary, operationId and namespace; descriptions, parameters and body fields weigh little.
 */
const FIELDS = {
  resource: 6,
  action: 5,
  summary: 2,
  group: 0.6,
  name: 0.6,
  tags: 0.4,
  description: 0.5,
  parameters: 0.25,
  body: 0.25,
  vocabulary: 0.3,
} as const;
type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];
/** Fields whose words say what an endpoint is about; document frequency is counted on these (namespace, tag and operationId words repeat the path, so they would make every resource in a namespace look common). */
const TOPICAL: Field[] = ['resource', 'action', 'summary'];
const K1 = 1.5;
const B = 0.75;
/** operationId words that only repeat the method (`dcim_devices_partial_update`). */
const OPERATION_VERBS = new Set(['list', 'create', 'retrieve', 'read', 'update', 'partial', 'destroy', 'delete', 'bulk']);

interface IndexedEndpoint {
  endpoint: EndpointDocument;
  shape: EndpointShape;
  /** The action's own words, without their compound (`available`, `ip`): an action is asked for when all are named. */
  actionWords: string[];
  fields: Record<Field, Map<string, number>>;
  lengths: Record<Field, number>;
  /** Each term's BM25F frequency over all fields (field weights and length normalisation applied), computed once. */
  tf: Map<string, number>;
}

function counts(list: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const term of list) map.set(term, (map.get(term) ?? 0) + 1);
  return map;
}

export interface LexicalHit {
  index: number;
  /** Share of the query's weight the endpoint matches, 0..1. */
  coverage: number;
  /** Terms matched in the action words (an action path asked for by name). */
  actionMatched: boolean;
}

export class LexicalIndex {
  readonly entries: IndexedEndpoint[];
  private readonly postings = new Map<string, Set<number>>();
  private readonly topicalDf = new Map<string, number>();
  private readonly resourceTerms = new Set<string>();
  private readonly averages: Record<Field, number>;

  constructor(endpoints: EndpointDocument[]) {
    this.entries = endpoints.map((endpoint) => {
      const shape = endpointShape(endpoint);
      const lists: Record<Field, string[]> = {
        resource: shape.resource,
        action: shape.action,
        summary: terms(endpoint.summary),
        group: shape.group,
        name: terms(endpoint.operationId).filter((term) => !OPERATION_VERBS.has(term)),
        tags: endpoint.tags.flatMap(terms),
        description: terms(endpoint.description),
        parameters: endpoint.parameters.flatMap(terms),
        body: endpoint.bodyFields.flatMap(terms),
        vocabulary: endpoint.vocabulary.flatMap(terms),
      };
      const fields = Object.fromEntries(FIELD_NAMES.map((field) => [field, counts(lists[field])])) as Record<Field, Map<string, number>>;
      const lengths = Object.fromEntries(FIELD_NAMES.map((field) => [field, lists[field].length])) as Record<Field, number>;
      // Words the resource also has ("asn" in /asn-ranges/{id}/available-asns/) cannot tell the action from the resource.
      const actionWords = shape.action.filter(
        (term) => !shape.action.some((other) => other !== term && term.startsWith(other)) && !shape.resource.includes(term),
      );
      return { endpoint, shape, actionWords, fields, lengths, tf: new Map<string, number>() };
    });
    const n = Math.max(this.entries.length, 1);
    this.averages = Object.fromEntries(
      FIELD_NAMES.map((field) => [field, Math.max(this.entries.reduce((sum, entry) => sum + entry.lengths[field], 0) / n, 1)]),
    ) as Record<Field, number>;
    this.entries.forEach((entry, index) => {
      for (const term of entry.fields.resource.keys()) this.resourceTerms.add(term);
      const topical = new Set<string>();
      for (const field of FIELD_NAMES) {
        const norm = 1 - B + (B * entry.lengths[field]) / this.averages[field];
        for (const [term, count] of entry.fields[field]) {
          entry.tf.set(term, (entry.tf.get(term) ?? 0) + (FIELDS[field] * count) / norm);
          let set = this.postings.get(term);
          if (!set) this.postings.set(term, (set = new Set()));
          set.add(index);
          if (TOPICAL.includes(field)) topical.add(term);
        }
      }
      for (const term of topical) this.topicalDf.set(term, (this.topicalDf.get(term) ?? 0) + 1);
    });
  }

  has(term: string): boolean {
    return this.postings.has(term);
  }

  /**
   * Path and summary words spelled nearly like `term` ("devcie" → device, "vlna" → vlan): one edit
   * for short words, two from six letters on. For words the index does not have at all.
   */
  similar(term: string): string[] {
    if (term.length < 4) return [];
    const allowed = term.length >= 6 ? 2 : 1;
    return [...this.topicalDf.keys()].filter(
      (known) => Math.abs(known.length - term.length) <= allowed && distance(known, term) <= allowed,
    );
  }

  /** True for a word that names a resource in some path (`device`, `bookmark`). */
  isResource(term: string): boolean {
    return this.resourceTerms.has(term);
  }

  private idf(term: string): number {
    const df = this.topicalDf.get(term) ?? this.postings.get(term)?.size ?? 0;
    const n = this.entries.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  private termScore(entry: IndexedEndpoint, term: string, idf: number): number {
    const tf = entry.tf.get(term);
    return tf ? (idf * tf * (K1 + 1)) / (K1 + tf) : 0;
  }

  /** Every endpoint matching at least one group, with its coverage of the query. */
  search(groups: QueryGroup[]): LexicalHit[] {
    // BM25's ceiling for a term (tf → ∞), so coverage stays below 1 and keeps its order.
    const ideal = K1 + 1;
    const prepared = groups
      .map((group) => ({
        group,
        alternatives: group.alternatives.filter((alt) => this.postings.has(alt.term)).map((alt) => ({ ...alt, idf: this.idf(alt.term) })),
      }))
      .filter((entry) => entry.alternatives.length > 0);
    // Each alternative is judged against its own ceiling, so a rarer alternative ("virtual machine"
    // for a host name) does not outweigh the preferred one ("device") by its rarity alone; a group
    // weighs as much as its preferred alternative.
    const groupIdf = prepared.map(({ alternatives }) => alternatives[0]!.idf);
    const total = prepared.reduce((sum, { group }, k) => sum + group.weight * groupIdf[k]!, 0);
    if (total === 0) return [];
    const candidates = new Set<number>();
    for (const { alternatives } of prepared)
      for (const alt of alternatives) for (const index of this.postings.get(alt.term)!) candidates.add(index);
    const asked = new Set(prepared.flatMap(({ alternatives }) => alternatives.map(({ term }) => term)));
    const hits: LexicalHit[] = [];
    for (const index of candidates) {
      const entry = this.entries[index]!;
      let sum = 0;
      for (let k = 0; k < prepared.length; k++) {
        const { group, alternatives } = prepared[k]!;
        let best = 0;
        for (const alt of alternatives) best = Math.max(best, (alt.weight * this.termScore(entry, alt.term, alt.idf)) / (alt.idf * ideal));
        sum += group.weight * groupIdf[k]! * best;
      }
      const { actionWords } = entry;
      const actionMatched = actionWords.length > 0 && (actionWords.every((word) => asked.has(word)) || asked.has(actionWords.join('')));
      hits.push({ index, coverage: sum / total, actionMatched });
    }
    return hits;
  }
}
