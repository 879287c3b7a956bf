import type { EndpointDocument } from './endpoint-document.js';
import { singular, words } from './text.js';

/** Where an endpoint sits in the API's URL structure, read from its path alone. */
export interface EndpointShape {
  /** Namespace words before the resource (`dcim`, `plugins ai ops`); `api` for top-level endpoints. */
  group: string[];
  /** The resource's words, singular, plus their joined compound (`device type devicetype`). */
  resource: string[];
  /** Words of an action after an id (`available ip availableip`, `elevation`, `run`). */
  action: string[];
  kind: 'collection' | 'detail' | 'action';
  /** A GET that pages through many objects (takes limit/offset/page/cursor). */
  listable: boolean;
}

const PAGING = new Set(['limit', 'offset', 'page', 'cursor', 'per_page', 'page_size']);

/** Singular words of a path segment and, when there are several, their compound. */
export function segmentTerms(segment: string): string[] {
  const parts = words(segment).map(singular);
  return parts.length > 1 ? [...parts, parts.join('')] : parts;
}

export function endpointShape(endpoint: EndpointDocument): EndpointShape {
  const segments = endpoint.path.split('/').filter(Boolean);
  while (segments.length > 1 && (/^api$/i.test(segments[0]!) || /^v\d+$/i.test(segments[0]!))) segments.shift();
  const firstParam = segments.findIndex((segment) => segment.includes('{'));
  const literalsBefore = firstParam < 0 ? segments : segments.slice(0, firstParam);
  const after = firstParam < 0 ? [] : segments.slice(firstParam + 1).filter((segment) => !segment.includes('{'));
  const resourceSegment = literalsBefore.at(-1) ?? '';
  const groupSegments = literalsBefore.slice(0, -1);
  return {
    group: groupSegments.length ? groupSegments.flatMap(segmentTerms) : ['api'],
    resource: segmentTerms(resourceSegment),
    action: after.flatMap(segmentTerms),
    kind: after.length ? 'action' : firstParam >= 0 ? 'detail' : 'collection',
    listable: endpoint.method === 'GET' && endpoint.parameters.some((name) => PAGING.has(name)),
  };
}
