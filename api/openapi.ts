import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { packagePath } from '../shared/package-root.js';

export type OpenApiDocument = OpenAPIV3.DocumentV3;

/** The single contract of the HTTP API: validates requests (and responses in tests) and is served as is. */
export function loadOpenApiDocument(): OpenApiDocument {
  return parse(readFileSync(packagePath('api/openapi.yaml'), 'utf8')) as OpenApiDocument;
}

/** The `x-aiops-permission` extension of an operation, if it declares one. */
export function operationPermission(operation: object | undefined): string | undefined {
  const value = (operation as Record<string, unknown> | undefined)?.['x-aiops-permission'];
  return typeof value === 'string' ? value : undefined;
}
