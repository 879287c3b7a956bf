import { NotFoundError } from '../kernel/errors.js';
import type { EndpointDocument } from './endpoint-document.js';
import type { HttpMethod } from '../platform/platform.port.js';
import { terms } from '../kernel/text.js';

/** A (method, path) the description does not have; `closest` lists what the caller may have meant. */
export class UnknownOperationError extends NotFoundError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly closest: Array<{ method: HttpMethod; path: string; summary: string }>,
  ) {
    super(
      `the platform's API description has no operation ${method} ${path}` +
        (closest.length ? `; closest: ${closest.map((operation) => `${operation.method} ${operation.path}`).join(', ')}` : ''),
    );
  }
}

const segmentsOf = (path: string) => path.split('?')[0]!.split('/').filter(Boolean);
const isTemplate = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/** How well a concrete or template path fits an endpoint's path: literal segments count more than filled-in parameters; -1 when it does not fit. */
function fit(asked: string[], endpointSegments: string[]): number {
  if (asked.length !== endpointSegments.length) return -1;
  let score = 0;
  for (const [index, segment] of endpointSegments.entries()) {
    const given = asked[index]!;
    if (segment === given) score += 2;
    else if (isTemplate(segment)) score += 1;
    else return -1;
  }
  return score;
}

/**
 * Finds operations by method and path, as an agent writes them: the request path
 * (`/api/dcim/devices/{id}/`), the description's own path key (`/dcim/devices/{id}/`), with ids
 * filled in (`/api/dcim/devices/42/`), with or without the trailing slash.
 */
export class OperationLookup {
  /** Each endpoint with the segments of its request path and of its path key. */
  private readonly routes: Array<{ endpoint: EndpointDocument; full: string[]; own: string[] }>;

  constructor(private readonly endpoints: EndpointDocument[]) {
    this.routes = endpoints.map((endpoint) => ({ endpoint, full: segmentsOf(endpoint.path), own: segmentsOf(endpoint.specPath) }));
  }

  /** The operation, or UnknownOperationError naming the closest ones. */
  find(method: string, path: string): EndpointDocument {
    const asked = method.toUpperCase();
    const match = this.best(asked, path);
    if (match) return match;
    throw new UnknownOperationError(
      asked,
      path,
      this.closest(asked, path).map(({ method: m, path: p, summary }) => ({ method: m, path: p, summary })),
    );
  }

  /** The operation, or undefined when the description has none. */
  match(method: string, path: string): EndpointDocument | undefined {
    return this.best(method.toUpperCase(), path);
  }

  private best(method: string, path: string): EndpointDocument | undefined {
    const asked = segmentsOf(path);
    let best: { endpoint: EndpointDocument; score: number } | undefined;
    for (const { endpoint, full, own } of this.routes) {
      if (endpoint.method !== method) continue;
      const score = Math.max(fit(asked, full), fit(asked, own)) - (endpoint.deprecated ? 0.5 : 0);
      if (score >= 0 && (!best || score > best.score)) best = { endpoint, score };
    }
    return best?.endpoint;
  }

  /** Operations nearest to a (method, path) that has none: same path words first, same method preferred. */
  closest(method: string, path: string, limit = 5): EndpointDocument[] {
    const askedTerms = new Set(
      terms(
        segmentsOf(path)
          .filter((segment) => !isTemplate(segment) && !/^\d+$|^[0-9a-f-]{36}$/i.test(segment))
          .join(' '),
      ),
    );
    const askedLength = segmentsOf(path).length;
    const scored = this.endpoints.map((endpoint, index) => {
      const endpointTerms = new Set(
        terms(
          segmentsOf(endpoint.path)
            .filter((segment) => !isTemplate(segment))
            .join(' '),
        ),
      );
      let shared = 0;
      for (const term of askedTerms) if (endpointTerms.has(term)) shared += 1;
      const union = new Set([...askedTerms, ...endpointTerms]).size || 1;
      const lengthPenalty = Math.abs(segmentsOf(endpoint.path).length - askedLength) * 0.05;
      const score = shared / union + (endpoint.method === method ? 0.3 : 0) - lengthPenalty;
      return { endpoint, score, index };
    });
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.slice(0, limit).map(({ endpoint }) => endpoint);
  }
}
