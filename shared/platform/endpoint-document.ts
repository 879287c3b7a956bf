import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import { HTTP_METHODS, type HttpMethod } from './platform-client.js';

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
  /** Top-level request-body field names, `$ref`s resolved. */
  bodyFields: string[];
  deprecated: boolean;
}

export interface ParsedDescription {
  title: string;
  version: string;
  /** Path prefix from `servers[0].url` (OpenAPI 3) or `basePath` (Swagger 2), `''` when none. */
  prefix: string;
  endpoints: EndpointDocument[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function resolveRef(root: Json, value: unknown, seen = new Set<string>()): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string') return value;
  const ref = value.$ref;
  if (!ref.startsWith('#/') || seen.has(ref)) return {};
  seen.add(ref);
  let target: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isObject(target)) return {};
    target = target[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return resolveRef(root, target, seen);
}

/** Field names of a schema: its properties, through allOf/oneOf/anyOf and array items. */
function schemaFields(root: Json, schema: unknown, depth = 0): string[] {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > 4) return [];
  const names = isObject(resolved.properties) ? Object.keys(resolved.properties) : [];
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = resolved[key];
    if (Array.isArray(list)) for (const part of list) names.push(...schemaFields(root, part, depth + 1));
  }
  if (resolved.type === 'array') names.push(...schemaFields(root, resolved.items, depth + 1));
  return names;
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

/**
 * Reads an OpenAPI 3 or Swagger 2 description into endpoint documents. Path-level `parameters`
 * and other non-operation keys are tolerated; `$ref`s to parameters, request bodies and schemas
 * are resolved inside the document.
 */
export function parseDescription(input: unknown): ParsedDescription {
  if (!isObject(input) || !isObject(input.paths) || (typeof input.openapi !== 'string' && typeof input.swagger !== 'string')) {
    throw ValidationError.field('description', 'not an OpenAPI 3 or Swagger 2 document (no openapi/swagger version or no paths)');
  }
  const swagger2 = typeof input.swagger === 'string';
  const prefix = serverPrefix(input);
  const endpoints: EndpointDocument[] = [];
  for (const [specPath, rawItem] of Object.entries(input.paths)) {
    const item = resolveRef(input, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of HTTP_METHODS) {
      const operation = item[method.toLowerCase()];
      if (!isObject(operation)) continue;
      const parameters: string[] = [];
      const bodyFields: string[] = [];
      for (const raw of [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])]) {
        const parameter = resolveRef(input, raw);
        if (!isObject(parameter)) continue;
        if (parameter.in === 'body') bodyFields.push(...schemaFields(input, parameter.schema));
        else if (parameter.in === 'formData') bodyFields.push(text(parameter.name));
        else if (text(parameter.name)) parameters.push(text(parameter.name));
      }
      if (!swagger2) {
        const body = resolveRef(input, operation.requestBody);
        if (isObject(body) && isObject(body.content)) {
          const media = (body.content['application/json'] ?? Object.values(body.content)[0]) as unknown;
          if (isObject(media)) bodyFields.push(...schemaFields(input, media.schema));
        }
      }
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
        parameters: [...new Set(parameters)],
        bodyFields: [...new Set(bodyFields)],
        deprecated: operation.deprecated === true,
      });
    }
  }
  const info = isObject(input.info) ? input.info : {};
  return { title: text(info.title), version: text(info.version), prefix, endpoints };
}

/** Changes when anything the index stores about the endpoint changes. */
export function endpointHash(endpoint: EndpointDocument): string {
  return createHash('sha256').update(JSON.stringify(endpoint)).digest('hex').slice(0, 32);
}

/** The text a dense model embeds for an endpoint. */
export function endpointEmbeddingText(endpoint: EndpointDocument, purpose: string): string {
  const words = (value: string) => value.replace(/[_\-{}/]+/g, ' ').trim();
  return [purpose, `${endpoint.method} ${endpoint.specPath}`, endpoint.summary, words(endpoint.operationId), endpoint.tags.join(' '), endpoint.description.slice(0, 300)]
    .filter(Boolean)
    .join('. ');
}
