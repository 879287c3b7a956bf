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
  if (typeof version !== 'string') throw new Error('the OpenAPI document declares no info.x-api-version');
  return version;
}
