import { isObject, resolveRef, text, type Json } from './openapi-refs.js';
import type { HttpMethod } from '../platform/platform.port.js';

/** One parameter of an operation, references resolved, in the same form for OpenAPI 3 and Swagger 2. */
export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description: string;
  /** The value's schema (OpenAPI 3 `schema`; in Swagger 2 the parameter itself carries type, format and enum). */
  schema: unknown;
}

/** An operation as written in the description, with what both versions spell differently made alike. */
export interface OperationParts {
  operation: Json;
  parameters: OperationParameter[];
  /** The request body's schema (JSON first, else the first media type; Swagger 2 `in: body` or form fields). */
  body?: { schema: unknown; required: boolean };
}

export const isSwagger2 = (root: Json): boolean => typeof root.swagger === 'string';

/** Path-level parameters first, overridden by operation-level ones of the same name and place. */
function mergedParameters(root: Json, pathItem: Json, operation: Json): Json[] {
  const own = (Array.isArray(operation.parameters) ? operation.parameters : []).map((raw) => resolveRef(root, raw)).filter(isObject);
  if (!Array.isArray(pathItem.parameters) || pathItem.parameters.length === 0) return own;
  const key = (parameter: Json) => `${text(parameter.in)} ${text(parameter.name)}`;
  const overridden = new Set(own.map(key));
  const shared = pathItem.parameters
    .map((raw) => resolveRef(root, raw))
    .filter((parameter): parameter is Json => isObject(parameter) && !overridden.has(key(parameter)));
  return [...shared, ...own];
}

function parameterSchema(parameter: Json, swagger2: boolean): unknown {
  if (swagger2) return parameter;
  if (parameter.schema !== undefined) return parameter.schema;
  if (isObject(parameter.content)) {
    const media = Object.values(parameter.content)[0];
    if (isObject(media)) return media.schema;
  }
  return undefined;
}

function openapi3Body(root: Json, operation: Json): OperationParts['body'] {
  const body = resolveRef(root, operation.requestBody);
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const types = Object.keys(body.content);
  const json = types.find((type) => /json/i.test(type)) ?? types[0];
  const media = json ? body.content[json] : undefined;
  return isObject(media) ? { schema: media.schema, required: body.required === true } : undefined;
}

/** The operation at `specPath` and `method`, or undefined when the description has none. */
export function operationParts(root: Json, specPath: string, method: HttpMethod): OperationParts | undefined {
  const paths = isObject(root.paths) ? root.paths : {};
  const pathItem = resolveRef(root, paths[specPath]);
  if (!isObject(pathItem)) return undefined;
  const operation = pathItem[method.toLowerCase()];
  if (!isObject(operation)) return undefined;
  const swagger2 = isSwagger2(root);
  const parameters: OperationParameter[] = [];
  let body: OperationParts['body'];
  const form: Json = { type: 'object', properties: {}, required: [] as string[] };
  for (const parameter of mergedParameters(root, pathItem, operation)) {
    const place = text(parameter.in);
    if (!text(parameter.name)) continue;
    if (place === 'body') body = { schema: parameter.schema, required: parameter.required === true };
    else if (place === 'formData') {
      (form.properties as Json)[text(parameter.name)] = parameter;
      if (parameter.required === true) (form.required as string[]).push(text(parameter.name));
    } else if (place === 'path' || place === 'query' || place === 'header' || place === 'cookie') {
      parameters.push({
        name: text(parameter.name),
        in: place,
        required: parameter.required === true || place === 'path',
        description: text(parameter.description),
        schema: parameterSchema(parameter, swagger2),
      });
    }
  }
  if (!body && Object.keys(form.properties as Json).length > 0) body = { schema: form, required: true };
  if (!swagger2) body = openapi3Body(root, operation) ?? body;
  return { operation, parameters, ...(body ? { body } : {}) };
}

/** The schema of an operation's success answer (the first 2xx with a body), JSON preferred. */
export function responseSchema(root: Json, operation: Json): unknown {
  const responses = isObject(operation.responses) ? operation.responses : {};
  for (const [code, raw] of Object.entries(responses)) {
    if (!/^2\d\d$/.test(code)) continue;
    const response = resolveRef(root, raw);
    if (!isObject(response)) continue;
    if (response.schema !== undefined) return response.schema;
    if (isObject(response.content)) {
      const types = Object.keys(response.content);
      const media = response.content[types.find((type) => /json/i.test(type)) ?? types[0] ?? ''];
      if (isObject(media) && media.schema !== undefined) return media.schema;
    }
  }
  return undefined;
}
