import { distance } from 'fastest-levenshtein';
import type { EndpointDocument } from '../endpoint-search/endpoint-document.js';
import { endpointShape } from '../endpoint-search/endpoint-shape.js';
import { RESPONSE_PARAMETERS, splitLookup } from '../endpoint-search/filters.js';
import { operationParts } from '../endpoint-search/openapi-operation.js';
import type { Json } from '../endpoint-search/openapi-refs.js';
import type { PlanError } from './write-plan.js';

/** Suggestions worse than this (edit distance over length, less the bonuses) are not made, */
const FAR = 0.6;
/** nor those this much worse than the best one. */
const BEHIND_BEST = 0.15;

/** The query parameters an operation declares. */
export function declaredQueryParameters(document: Json, endpoint: EndpointDocument): string[] {
  return (operationParts(document, endpoint.specPath, endpoint.method)?.parameters ?? [])
    .filter((parameter) => parameter.in === 'query')
    .map(({ name }) => name);
}

const firstWord = (name: string) => name.split('_')[0] ?? name;

/**
 * The declared names nearest to a misspelled one, best first: by edit distance, helped by sharing
 * the first word (`site_name` → `site`, `site_id`) or one name holding the other. Lookup variants
 * (`name__ic`) are suggested only for a name that has a lookup itself.
 */
export function closestNames(asked: string, declared: string[], max = 2): string[] {
  const withLookups = splitLookup(asked).lookup !== undefined;
  return declared
    .filter((name) => withLookups || splitLookup(name).lookup === undefined)
    .map((name) => {
      let score = distance(asked, name) / Math.max(asked.length, name.length);
      if (firstWord(asked) === firstWord(name)) score -= 0.3;
      if (asked.includes(name) || name.includes(asked)) score -= 0.2;
      return { name, score };
    })
    .filter(({ score }) => score < FAR)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .filter(({ score }, _index, ranked) => score - ranked[0]!.score <= BEHIND_BEST)
    .slice(0, max)
    .map(({ name }) => name)
    .sort();
}

/** The query parameters that select objects: all but those that page or shape an answer. */
export function selectingParameters(params: Record<string, unknown> | undefined): string[] {
  return Object.keys(params ?? {}).filter((name) => !RESPONSE_PARAMETERS.has(name));
}

const orList = (names: string[]) => names.map((name) => `\`${name}\``).join(' or ');

/**
 * The query parameters of a request that its operation does not declare. The platforms ignore an
 * unknown filter, so a list "filtered" by a misspelled name answers every object: each is refused,
 * with the closest declared names. Parameters that page or shape an answer (limit, offset, brief,
 * fields...) select nothing and pass.
 */
export function undeclaredParameters(document: Json, endpoint: EndpointDocument, params: Record<string, unknown> | undefined): PlanError[] {
  const asked = selectingParameters(params);
  if (asked.length === 0) return [];
  const declared = declaredQueryParameters(document, endpoint);
  const known = new Set(declared);
  const kind = endpoint.method === 'GET' && endpointShape(endpoint).kind === 'collection' ? 'a filter' : 'a query parameter';
  return asked
    .filter((name) => !known.has(name))
    .map((name) => {
      const closest = closestNames(name, declared);
      return {
        field: `params.${name}`,
        message:
          `\`${name}\` is not ${kind} of ${endpoint.method} ${endpoint.path}` +
          (closest.length ? `; did you mean ${orList(closest)}?` : declared.length ? '' : ' (it takes none)'),
      };
    });
}
