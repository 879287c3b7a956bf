import type { EndpointDocument } from './endpoint-document.js';
import type { EndpointShape } from './endpoint-shape.js';
import { METHOD_MISS, type Intent } from './intent.js';
import { LexicalIndex } from './lexical-index.js';
import { QueryAnalyser, type QueryGroup } from './query-analysis.js';
import { ResourceVariants } from './resource-variants.js';
import { SpecVocabulary } from './spec-vocabulary.js';

/** Dense similarity (cosine) of the nearest endpoints to a query, keyed by endpoint key. */
export type DenseScorer = (query: string, limit: number) => Promise<Map<string, number>>;

export interface ScoredEndpoint {
  endpoint: EndpointDocument;
  /** 0..1: how well the words match, times how well method and path shape fit the intent. */
  score: number;
}

/** Weight of the lexical part when both parts are there; the dense part gets the rest. */
const LEXICAL_SHARE = 0.7;
const DENSE_CANDIDATES = 50;
/** A near spelling counts this much of the word itself. */
const MISSPELT = 0.8;

/** POST operations that read: a query language's endpoint (`/graphql/`) or a search taking its query in a body. */
const READ_BY_POST = /\/(?:graphql|query|search)\/?$/i;

/**
 * Method and shape fit. Reads default to the collection, single-object writes to `{id}`; action
 * paths (`/{id}/trace/`) only fit when the request names their action.
 */
export function intentFit(endpoint: EndpointDocument, shape: EndpointShape, intent: Intent, actionMatched: boolean): number {
  // An action named in the request ("trace", "sync") comes with its own method, whatever the verb.
  const written = intent.methods[endpoint.method] ?? METHOD_MISS;
  const asked = endpoint.method === 'POST' && READ_BY_POST.test(endpoint.path) ? Math.max(written, intent.methods.GET ?? 0) : written;
  const method = shape.kind === 'action' && actionMatched ? Math.max(asked, 0.85) : asked;
  const deprecated = endpoint.deprecated ? 0.95 : 1;
  let fit: number;
  if (shape.kind === 'action') fit = actionMatched ? 1 : 0.5;
  else {
    const detail = shape.kind === 'detail';
    if (endpoint.method === 'GET') {
      // An id reads the object; "get the profile" leans to it; a name is found by filtering the list first.
      if (intent.one === 'id') fit = detail ? 1 : 0.7;
      else if (intent.one === 'implied' && !intent.many) fit = detail ? 1 : 0.9;
      else if (intent.one === 'name' && !intent.many) fit = detail ? 0.92 : 1;
      else fit = detail ? 0.7 : intent.listing && !shape.listable ? 0.8 : 1;
    } else if (endpoint.method === 'POST') fit = detail ? 0.6 : 1;
    else fit = intent.many ? (detail ? 0.75 : 1) : detail ? 1 : 0.6;
  }
  return method * fit * deprecated;
}

/** A variant of a resource (a VM's interfaces beside a device's) that the request does not say it means counts this much. */
const UNASKED_VARIANT = 0.85;
/** In a link request, a write that does not join its two objects counts this much. */
const UNLINKED = 0.7;

/** A body that relates its object to an object of any kind (`assigned_object_type` with `assigned_object_id`): NetBox's terminations and assignments. */
function relatesAnyObject(bodyFields: string[]): boolean {
  return bodyFields.some((field) => field.endsWith('_type') && bodyFields.includes(`${field.slice(0, -'_type'.length)}_id`));
}

/** The words of the two objects of a link ("put VLAN 310 on the trunk": `vlan`, then `interface`). */
export interface LinkSides {
  object: Set<string>;
  target: Set<string>;
}

export function linkSides(groups: QueryGroup[]): LinkSides {
  const sideTerms = (side: QueryGroup['side']) =>
    new Set(groups.filter((group) => group.side === side).flatMap(({ alternatives }) => alternatives.map(({ term }) => term)));
  return { object: sideTerms('object'), target: sideTerms('target') };
}

/**
 * Whether a write joins the two objects of a link ("put VLAN 310 on the trunk"): its resource is
 * one of them and its body has a field naming the other (an interface's `tagged_vlans`, a virtual
 * machine's `cluster`), or it is a link object of one of them to anything. Read from the
 * description, so it holds for any platform's data model.
 */
export function joinsLink(
  endpoint: EndpointDocument,
  shape: EndpointShape,
  bodyHas: (term: string) => boolean,
  { object, target }: LinkSides,
): boolean {
  const names = (side: Set<string>) => shape.resource.some((term) => side.has(term));
  const refers = (side: Set<string>) => [...side].some(bodyHas);
  return (
    (names(object) && refers(target)) ||
    (names(target) && refers(object)) ||
    (endpoint.method === 'POST' && (names(object) || names(target)) && relatesAnyObject(endpoint.bodyFields))
  );
}

export interface EndpointSearchOptions {
  /** Reads queries; the default knows the network vocabulary. */
  analyser?: QueryAnalyser;
  /** Weigh endpoints by the intent's method and shape (default true; off only to measure what intent adds). */
  intent?: boolean;
  /** Read the platform's own words (field names, enum values) as pointers to resources (default true). */
  specVocabulary?: boolean;
}

/** Hybrid endpoint search over one parsed description: lexical always, dense when given. */
export class EndpointSearch {
  readonly lexical: LexicalIndex;
  private readonly byKey: Map<string, number>;
  private readonly analyser: QueryAnalyser;
  private readonly useIntent: boolean;
  private readonly vocabulary?: SpecVocabulary;
  private readonly variants: ResourceVariants;

  constructor(
    readonly endpoints: EndpointDocument[],
    options: EndpointSearchOptions = {},
  ) {
    this.lexical = new LexicalIndex(endpoints);
    this.byKey = new Map(endpoints.map((endpoint, index) => [endpoint.key, index]));
    this.variants = new ResourceVariants(this.lexical.entries);
    this.analyser = options.analyser ?? new QueryAnalyser();
    this.useIntent = options.intent ?? true;
    if (options.specVocabulary ?? true) this.vocabulary = new SpecVocabulary(endpoints);
  }

  async search(query: string, limit: number, dense?: DenseScorer): Promise<ScoredEndpoint[]> {
    const { groups, intent } = this.analyser.analyse(query, {
      knows: (term) => this.lexical.has(term),
      isResource: (term) => this.lexical.isResource(term),
      ...(this.vocabulary
        ? {
            meaning: (term: string) => this.vocabulary!.meaning(term),
            fieldOf: (words: string[]) => this.vocabulary!.fieldOf(words),
            holdsMany: (resource: string, held: string) => this.vocabulary!.holdsMany(resource, held),
          }
        : {}),
    });
    // A word the index does not have may be misspelt: its near spellings stand in, a little lower.
    const spelled = groups.map((group) =>
      group.alternatives.some(({ term }) => this.lexical.has(term))
        ? group
        : {
            ...group,
            alternatives: group.alternatives.flatMap(({ term, weight }) =>
              [...new Set([...this.lexical.similar(term), ...this.lexical.similar(group.source.toLowerCase().replace(/s$/, ''))])].map(
                (near) => ({ term: near, weight: weight * MISSPELT }),
              ),
            ),
          },
    );
    const lexicalHits = this.lexical.search(spelled);
    const denseScores = dense ? await dense(query, DENSE_CANDIDATES) : undefined;
    const candidates = new Map<number, { coverage: number; actionMatched: boolean }>();
    for (const hit of lexicalHits) candidates.set(hit.index, hit);
    for (const key of denseScores?.keys() ?? []) {
      const index = this.byKey.get(key);
      if (index !== undefined && !candidates.has(index)) candidates.set(index, { coverage: 0, actionMatched: false });
    }
    const sides = intent.linkAt === undefined ? undefined : linkSides(groups);
    const asked = new Set(spelled.flatMap(({ alternatives }) => alternatives.map(({ term }) => term)));
    const scored = [...candidates].map(([index, { coverage, actionMatched }]) => {
      const entry = this.lexical.entries[index]!;
      const words = denseScores
        ? LEXICAL_SHARE * coverage + (1 - LEXICAL_SHARE) * Math.max(denseScores.get(entry.endpoint.key) ?? 0, 0)
        : coverage;
      if (!this.useIntent) return { index, score: words };
      const linked =
        !sides || entry.endpoint.method === 'GET' || joinsLink(entry.endpoint, entry.shape, (term) => entry.fields.body.has(term), sides)
          ? 1
          : UNLINKED;
      const variant = this.variants.unasked(index, asked) ? UNASKED_VARIANT : 1;
      return { index, score: words * intentFit(entry.endpoint, entry.shape, intent, actionMatched) * linked * variant };
    });
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    // Never nothing: with no word in common, the lists fitting the asked method, at score 0.
    if (scored.length === 0) return this.fallback(intent, limit);
    return scored.slice(0, limit).map(({ index, score }) => ({ endpoint: this.endpoints[index]!, score: Math.round(score * 1000) / 1000 }));
  }

  private fallback(intent: Intent, limit: number): ScoredEndpoint[] {
    return this.lexical.entries
      .map((entry, index) => ({ entry, index, fit: intentFit(entry.endpoint, entry.shape, intent, false) }))
      .filter(({ entry }) => entry.shape.kind === 'collection')
      .sort((a, b) => b.fit - a.fit || a.index - b.index)
      .slice(0, limit)
      .map(({ entry }) => ({ endpoint: entry.endpoint, score: 0 }));
  }
}
