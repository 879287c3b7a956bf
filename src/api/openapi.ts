import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { packagePath } from '../kernel/package-root.js';

export type OpenApiDocument = OpenAPIV3.DocumentV3;

/** Freezes `value` and everything it holds, so that one parsed document can be shared safely. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

let loaded: OpenApiDocument | undefined;

/**
 * The single contract of the HTTP API: validates requests (and responses in tests) and is served as
 * is. It ships with the code, so it is parsed once per process and frozen (every API instance of
 * the process shares it, and with it the validators compiled from it).
 */
export function loadOpenApiDocument(): OpenApiDocument {
  loaded ??= deepFreeze(parse(readFileSync(packagePath('src/api/openapi.yaml'), 'utf8')) as OpenApiDocument);
  return loaded;
}

let documentedPaths: RegExp[] | undefined;

/** Whether `path` is one of the document's paths (a template such as `{id}` standing for one segment). */
export function isDocumentedPath(path: string): boolean {
  documentedPaths ??= Object.keys(loadOpenApiDocument().paths).map(
    (template) =>
      new RegExp(
        `^${template
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}$`,
      ),
  );
  return documentedPaths.some((pattern) => pattern.test(path));
}

/** The `x-aiops-permission` extension of an operation, if it declares one. */
export function operationPermission(operation: object | undefined): string | undefined {
  const value = (operation as Record<string, unknown> | undefined)?.['x-aiops-permission'];
  return typeof value === 'string' ? value : undefined;
}

/** The API's version (`info.x-api-version`): every answer names it in `API-Version`, and it is the one a client may ask for. */
export function apiVersionOf(document: OpenApiDocument): string {
  const version: unknown = (document.info as object as Record<string, unknown>)['x-api-version'];
  // A plain Error: the document ships with the service, so this is a defect of the build, never an answer to a request.
  if (typeof version !== 'string') throw new Error('the OpenAPI document declares no info.x-api-version');
  return version;
}

/** A part of the OpenAPI document, read loosely: helpers walk schemas and parameters of any shape. */
export type DocumentNode = Record<string, unknown>;

export const isNode = (value: unknown): value is DocumentNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `node`, or what its `$ref` (`#/components/schemas/X` and the like) points to, followed until a part that is not a reference. */
export function resolved(document: OpenApiDocument, node: unknown): DocumentNode {
  let part = isNode(node) ? node : {};
  for (let hops = 0; typeof part.$ref === 'string' && hops < 10; hops++) {
    let target: unknown = document;
    for (const segment of part.$ref.replace(/^#\//, '').split('/')) target = isNode(target) ? target[segment] : undefined;
    part = isNode(target) ? target : {};
  }
  return part;
}

const QUERY_BOOLEAN = '#/components/schemas/QueryBoolean';

/** The query parameters of the GET on `path` that the document declares QueryBoolean (`brief`, `is_default`). */
export function queryBooleans(document: OpenApiDocument, path: string): Set<string> {
  const parameters = resolved(document, resolved(document, document.paths[path]).get).parameters;
  return new Set(
    (Array.isArray(parameters) ? parameters : [])
      .map((parameter) => resolved(document, parameter))
      .filter((parameter) => isNode(parameter.schema) && parameter.schema.$ref === QUERY_BOOLEAN)
      .map((parameter) => String(parameter.name)),
  );
}
