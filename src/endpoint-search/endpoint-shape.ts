import type { EndpointDocument } from './endpoint-document.js';
import { verbMethods } from './intent.js';
import { singular, words } from '../kernel/text.js';

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
  let firstParam = segments.findIndex((segment) => segment.includes('{'));
  // `/users/tokens/provision/`: a verb after a plural collection is an action on that collection.
  const last = segments.at(-1) ?? '';
  const parent = segments.at(-2) ?? '';
  if (firstParam < 0 && segments.length >= 3 && verbMethods(last) && singular(parent) !== parent) firstParam = segments.length - 1;
  const literalsBefore = firstParam < 0 ? segments : segments.slice(0, firstParam);
  const after = firstParam < 0 ? [] : segments.slice(firstParam).filter((segment) => !segment.includes('{'));
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

/** A plain-words purpose ("delete one device by id", "change many devices at once") from method and path shape. */
export function endpointPurpose(endpoint: EndpointDocument): string {
  const shape = endpointShape(endpoint);
  const literals = endpoint.path.split('/').filter((segment) => segment && !segment.includes('{'));
  const resourceWords = words(literals.at(shape.kind === 'action' ? -2 : -1) ?? '');
  const plural = resourceWords.join(' ');
  const one = [...resourceWords.slice(0, -1), singular(resourceWords.at(-1) ?? '')].join(' ');
  if (shape.kind === 'action') {
    const action = words(literals.at(-1) ?? '').join(' ');
    return endpoint.path.includes('{') ? `${endpoint.method} ${action} of one ${one}` : `${endpoint.method} ${action} on ${plural}`;
  }
  if (shape.kind === 'detail') {
    const verbs: Record<string, string> = {
      GET: 'retrieve',
      POST: 'post to',
      PUT: 'replace',
      PATCH: 'change some fields of',
      DELETE: 'delete',
    };
    return `${verbs[endpoint.method]} one ${one} by id`;
  }
  if (endpoint.method === 'GET') return `${shape.listable ? 'list' : 'read'} ${plural}`;
  if (endpoint.method === 'POST') return `create a ${one} (a list creates many)`;
  const verbs: Record<string, string> = { PUT: 'replace', PATCH: 'change', DELETE: 'delete' };
  return `${verbs[endpoint.method]} many ${plural} at once (a list of objects with their id)`;
}
