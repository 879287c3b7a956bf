import { endpointShape } from '../endpoint-search/endpoint-shape.js';
import type { EndpointDocument } from '../endpoint-search/endpoint-document.js';
import { operationParts } from '../endpoint-search/openapi-operation.js';
import { isObject, resolveRef, type Json } from '../endpoint-search/openapi-refs.js';
import { fieldRelation } from '../endpoint-search/operation-schema.js';
import { enumValues, isNullable, objectShape } from '../endpoint-search/schema-shape.js';
import { closestNames } from './query-check.js';
import type { PlanError } from './write-plan.js';

/** Choices listed in one error; a longer enum says how many there are. */
const CHOICES_SHOWN = 50;
const COMBINERS = ['allOf', 'oneOf', 'anyOf'] as const;
const MAX_DEPTH = 6;

/** One writable field of a request body. */
export interface BodyField {
  name: string;
  schema: unknown;
  /** The collection whose object the field names (a site, a VLAN): its value is resolved there, not type-checked. */
  collection?: string;
}

/** What an operation's request body takes, as the description says. */
export interface RequestBodyShape {
  fields: Map<string, BodyField>;
  /** Fields the platform sets itself (`id`, `display`, `last_updated`): given, they are ignored. */
  readOnly: Set<string>;
  required: string[];
  /** A change or delete of many objects on the collection path: a list of objects, each with its `id`. */
  bulk: boolean;
  /** A create on the collection path: one object, or a list of them. */
  listAccepted: boolean;
}

/** Every property name of a schema, read-only ones included, through references, combiners and list items. */
function propertyNames(root: Json, schema: unknown, depth = 0, names = new Set<string>()): Set<string> {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > MAX_DEPTH) return names;
  if (resolved.items !== undefined) propertyNames(root, resolved.items, depth + 1, names);
  if (isObject(resolved.properties)) for (const name of Object.keys(resolved.properties)) names.add(name);
  for (const key of COMBINERS) {
    const parts = resolved[key];
    if (Array.isArray(parts)) for (const part of parts) propertyNames(root, part, depth + 1, names);
  }
  return names;
}

/** The request body of an operation: its writable fields (each related one with its collection), read-only and required ones. */
export function requestBodyShape(
  document: Json,
  endpoint: EndpointDocument,
  related: (model: string, fromPath: string) => string | undefined,
): RequestBodyShape {
  const schema = operationParts(document, endpoint.specPath, endpoint.method)?.body?.schema;
  const shape = objectShape(document, schema);
  const fields = new Map(
    shape.properties.map(({ name, schema: field }) => {
      const collection = fieldRelation(document, name, field, (model) => related(model, endpoint.path));
      return [name, { name, schema: field, ...(collection ? { collection } : {}) }] as const;
    }),
  );
  const collection = endpointShape(endpoint).kind === 'collection';
  return {
    fields,
    readOnly: new Set([...propertyNames(document, schema)].filter((name) => !fields.has(name))),
    required: endpoint.requiredFields,
    bulk: collection && endpoint.method !== 'POST' && endpoint.method !== 'GET',
    listAccepted: collection && endpoint.method === 'POST',
  };
}

const tooFew = (value: number, schema: Json) =>
  typeof schema.minimum === 'number' && (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum);
const tooMany = (value: number, schema: Json) =>
  typeof schema.maximum === 'number' && (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum);

/** A number's range errors, as the schema bounds it. */
function rangeErrors(value: number, schema: Json, field: string): PlanError[] {
  if (tooFew(value, schema)) return [{ field, message: `${value} is below the minimum ${String(schema.minimum)}` }];
  if (tooMany(value, schema)) return [{ field, message: `${value} is above the maximum ${String(schema.maximum)}` }];
  return [];
}

/** Errors of a value outside an enum: the value, and the choices. */
function choiceError(root: Json, schema: unknown, value: unknown, field: string): PlanError {
  const choices = enumValues(root, schema);
  return {
    field,
    message:
      `${JSON.stringify(value)} is not one of the choices` +
      (choices.length > CHOICES_SHOWN ? ` (the first ${CHOICES_SHOWN} of ${choices.length})` : ''),
    choices: choices.slice(0, CHOICES_SHOWN),
  };
}

/**
 * What is wrong with one value against its schema: null where it may not be, a type the platform
 * does not take (as Django REST reads input: "5" is a number, 5 a text), a value outside an enum's
 * choices, a number out of range, a text too long. Every `allOf` part applies; one `oneOf`/`anyOf`
 * alternative is enough.
 */
export function valueErrors(root: Json, schema: unknown, value: unknown, field: string, depth = 0): PlanError[] {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > MAX_DEPTH) return [];
  if (value === null) {
    const nullable =
      isNullable(root, schema) ||
      ['oneOf', 'anyOf'].some((key) => Array.isArray(resolved[key]) && (resolved[key] as unknown[]).some((part) => isNullable(root, part)));
    return nullable ? [] : [{ field, message: 'may not be null' }];
  }
  if (Array.isArray(resolved.allOf)) {
    const errors = resolved.allOf.flatMap((part) => valueErrors(root, part, value, field, depth + 1));
    if (errors.length) return errors;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const parts = resolved[key];
    if (!Array.isArray(parts) || parts.length === 0) continue;
    const attempts = parts.map((part) => valueErrors(root, part, value, field, depth + 1));
    if (attempts.some((errors) => errors.length === 0)) continue;
    return attempts.every((errors) => errors.some((error) => error.choices)) ? [choiceError(root, resolved, value, field)] : attempts[0]!;
  }
  if (Array.isArray(resolved.enum)) return resolved.enum.includes(value) ? [] : [choiceError(root, resolved, value, field)];
  switch (resolved.type) {
    case 'string':
      if (typeof value !== 'string' && typeof value !== 'number') return [{ field, message: 'must be a text' }];
      if (typeof resolved.maxLength === 'number' && String(value).length > resolved.maxLength)
        return [{ field, message: `is ${String(value).length} characters long, at most ${resolved.maxLength} are allowed` }];
      return [];
    case 'integer':
    case 'number': {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isFinite(number) || (resolved.type === 'integer' && !Number.isInteger(number)))
        return [{ field, message: resolved.type === 'integer' ? 'must be a whole number' : 'must be a number' }];
      return rangeErrors(number, resolved, field);
    }
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false' ? [] : [{ field, message: 'must be true or false' }];
    case 'array':
      if (!Array.isArray(value)) return [{ field, message: 'must be a list' }];
      return value.flatMap((item, index) => valueErrors(root, resolved.items, item, `${field}[${index}]`, depth + 1));
    case 'object':
      return isObject(value) ? [] : [{ field, message: 'must be an object' }];
    default:
      return [];
  }
}

/** What a check of a body found: its errors, and the read-only fields given (the platform ignores them). */
export interface BodyCheck {
  errors: PlanError[];
  ignored: string[];
}

/**
 * Checks a request body against the operation's request schema: its shape (one object, or a list
 * for a bulk write), required fields missing, fields the schema does not have (with the closest
 * names), and each plain field's value (see valueErrors). Related fields are checked where their
 * objects are looked up.
 */
export function checkBody(root: Json, endpoint: EndpointDocument, shape: RequestBodyShape, body: unknown): BodyCheck {
  const errors: PlanError[] = [];
  const ignored = new Set<string>();
  if (endpoint.method === 'DELETE' && !shape.bulk) return { errors, ignored: [] };
  if (body === undefined || body === null) {
    if (shape.bulk) errors.push({ message: `a ${endpoint.method} on the collection path takes a list of objects, each with its id` });
    else if (endpoint.method !== 'DELETE' && (shape.fields.size > 0 || shape.required.length > 0))
      errors.push({ message: 'a JSON body is required' });
    return { errors, ignored: [] };
  }
  if (shape.bulk && !Array.isArray(body))
    return { errors: [{ message: `a ${endpoint.method} on the collection path takes a list of objects, each with its id` }], ignored: [] };
  if (Array.isArray(body) && !shape.bulk && !shape.listAccepted)
    return { errors: [{ message: 'a list body is only for writes of many objects on a collection path' }], ignored: [] };
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) errors.push({ message: 'the list is empty: nothing would be written' });
  items.forEach((item, index) => {
    const prefix = Array.isArray(body) ? `[${index}]` : '';
    const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
    if (!isObject(item)) {
      errors.push({ ...(prefix ? { field: prefix } : {}), message: 'must be an object' });
      return;
    }
    for (const name of shape.required) if (item[name] === undefined) errors.push({ field: at(name), message: 'is required' });
    // A delete reads nothing of its items but their ids.
    if (endpoint.method === 'DELETE') return;
    for (const [name, value] of Object.entries(item)) {
      const field = shape.fields.get(name);
      if (name === 'id' && shape.bulk) continue;
      if (!field) {
        if (shape.readOnly.has(name)) ignored.add(name);
        else {
          const closest = closestNames(name, [...shape.fields.keys()]);
          errors.push({
            field: at(name),
            message:
              `is not a field of ${endpoint.method} ${endpoint.path}` + (closest.length ? `; did you mean ${closest.join(' or ')}?` : ''),
          });
        }
        continue;
      }
      if (!field.collection) errors.push(...valueErrors(root, field.schema, value, at(name)));
    }
  });
  return { errors, ignored: [...ignored] };
}
