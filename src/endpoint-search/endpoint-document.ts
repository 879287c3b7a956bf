import { createHash } from 'node:crypto';
import { ValidationError } from '../kernel/errors.js';
import { mainFilters } from './filters.js';
import { operationParts, responseSchema } from './openapi-operation.js';
import { isObject, text, type Json } from './openapi-refs.js';
import { HTTP_METHODS, type HttpMethod } from '../platform/platform.port.js';
import { modelName, modelVocabulary, objectShape } from './schema-shape.js';

/** One operation of the platform's API, as the search indexes it. */
export interface EndpointDocument {
  /** `METHOD request-path`, unique within a description. */
  key: string;
  method: HttpMethod;
  /** The real request path, server prefix included: `/api/dcim/devices/`. */
  path: string;
  /** The path key as written in the description (Nautobot's omit `/api`). */
  specPath: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Path and query parameter names. */
  parameters: string[];
  /** Top-level writable request-body field names, `$ref`s resolved. */
  bodyFields: string[];
  /** Body fields the request must carry (writes), read-only ones left out. */
  requiredFields: string[];
  /** The filters a list read is most often narrowed by (`q`, `name`, `site`, `status`...); empty for other operations. */
  filters: string[];
  /** List reads: what the description says about the listed model in words (titles, enum values and labels), for search. */
  vocabulary: string[];
  /** The model the operation answers with (`Interface`, `VMInterface`), by its schema's name; '' when none. */
  model: string;
  deprecated: boolean;
}

export interface ParsedDescription {
  title: string;
  version: string;
  /** Path prefix from `servers[0].url` (OpenAPI 3) or `basePath` (Swagger 2), `''` when none. */
  prefix: string;
  endpoints: EndpointDocument[];
  /** The description itself, kept to describe one operation in full on request. */
  document: Json;
}

function serverPrefix(doc: Json): string {
  let raw = '';
  if (typeof doc.swagger === 'string') raw = text(doc.basePath);
  else if (Array.isArray(doc.servers) && isObject(doc.servers[0])) raw = text(doc.servers[0].url);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    try {
      raw = new URL(raw.replace(/\{[^}]*\}/g, 'x')).pathname;
    } catch {
      raw = '';
    }
  }
  return raw.replace(/\{[^}]*\}/g, '').replace(/\/+$/, '');
}

/** Joins the server prefix and a path key, unless the key already carries the prefix (NetBox). */
function requestPath(prefix: string, specPath: string): string {
  if (!prefix || specPath === prefix || specPath.startsWith(`${prefix}/`)) return specPath;
  return `${prefix}${specPath}`;
}

const isDetailPath = (path: string) => /\}\/?$/.test(path);

/**
 * What a write must carry. A partial update needs nothing; a change or delete of many objects at
 * once (on the collection path) needs each object's `id` (Django REST bulk operations), which
 * descriptions leave out because `id` is read-only.
 */
export function requiredFields(method: HttpMethod, path: string, schemaRequired: string[]): string[] {
  const bulk = method !== 'POST' && method !== 'GET' && !isDetailPath(path);
  if (method === 'GET') return [];
  if (method === 'DELETE' || method === 'PATCH') return bulk ? ['id'] : [];
  return bulk ? ['id', ...schemaRequired.filter((name) => name !== 'id')] : schemaRequired;
}

/**
 * Reads an OpenAPI 3 or Swagger 2 description into endpoint documents. Path-level `parameters`
 * and other non-operation keys are tolerated; `$ref`s to parameters, request bodies and schemas
 * are resolved inside the document.
 */
export function parseDescription(input: unknown): ParsedDescription {
  if (!isObject(input) || !isObject(input.paths) || (typeof input.openapi !== 'string' && typeof input.swagger !== 'string')) {
    throw ValidationError.field('description', 'not an OpenAPI 3 or Swagger 2 document (no openapi/swagger version or no paths)');
  }
  const prefix = serverPrefix(input);
  const endpoints: EndpointDocument[] = [];
  for (const specPath of Object.keys(input.paths)) {
    for (const method of HTTP_METHODS) {
      const parts = operationParts(input, specPath, method);
      if (!parts) continue;
      const { operation } = parts;
      const body = parts.body ? objectShape(input, parts.body.schema) : undefined;
      const path = requestPath(prefix, specPath);
      endpoints.push({
        key: `${method} ${path}`,
        method,
        path,
        specPath,
        operationId: text(operation.operationId),
        summary: text(operation.summary),
        description: text(operation.description),
        tags: Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [],
        parameters: [
          ...new Set(parts.parameters.filter((parameter) => parameter.in === 'path' || parameter.in === 'query').map(({ name }) => name)),
        ],
        bodyFields: body?.properties.map(({ name }) => name) ?? [],
        requiredFields: requiredFields(method, path, body?.required ?? []),
        filters: [],
        vocabulary: method === 'GET' && !isDetailPath(path) ? modelVocabulary(input, responseSchema(input, operation)) : [],
        model: modelName(input, responseSchema(input, operation)),
        deprecated: operation.deprecated === true,
      });
    }
  }
  // A list's main filters are those that match what a create writes, in the create's field order.
  const creates = new Map(endpoints.filter((endpoint) => endpoint.method === 'POST').map((endpoint) => [endpoint.path, endpoint]));
  for (const endpoint of endpoints) {
    if (endpoint.method === 'GET' && !isDetailPath(endpoint.path)) {
      const create = creates.get(endpoint.path);
      endpoint.filters = mainFilters(endpoint.parameters, { fields: create?.bodyFields ?? [], required: create?.requiredFields ?? [] });
    }
  }
  const info = isObject(input.info) ? input.info : {};
  return { title: text(info.title), version: text(info.version), prefix, endpoints, document: input };
}

/** Changes when anything the index stores about the endpoint changes. */
export function endpointHash(endpoint: EndpointDocument): string {
  return createHash('sha256').update(JSON.stringify(endpoint)).digest('hex').slice(0, 32);
}

/** The text a dense model embeds for an endpoint. */
export function endpointEmbeddingText(endpoint: EndpointDocument, purpose: string): string {
  const words = (value: string) => value.replace(/[_\-{}/]+/g, ' ').trim();
  return [
    purpose,
    `${endpoint.method} ${endpoint.specPath}`,
    endpoint.summary,
    words(endpoint.operationId),
    endpoint.tags.join(' '),
    endpoint.description.slice(0, 300),
  ]
    .filter(Boolean)
    .join('. ');
}
