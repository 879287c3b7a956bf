import { endpointShape } from '../endpoint-search/endpoint-shape.js';
import { requiredFields, type EndpointDocument } from '../endpoint-search/endpoint-document.js';
import { operationParts } from '../endpoint-search/openapi-operation.js';
import { isObject, resolveRef, type Json } from '../endpoint-search/openapi-refs.js';
import { fieldRelation } from '../endpoint-search/operation-schema.js';
import {
  declaredRelation,
  enumValues,
  fittingAlternative,
  isNullable,
  objectShape,
  type DeclaredRelation,
} from '../endpoint-search/schema-shape.js';
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
  /** How the platform also finds that object by name, when the description declares it. */
  naming?: DeclaredRelation;
  /** What the field becomes when a create or a replacement leaves it out (`x-aiops-default`). */
  default?: { value: unknown };
  /** One object at most holds this flag: setting it clears it on the object that had it (`x-aiops-exclusive`). */
  exclusive?: true;
  /** The field the object holds this value in, read back and compared under that name (`x-aiops-written-as`): an alias. */
  writtenAs?: string;
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

/** An extension a field declares on itself or on what it references (`x-aiops-default`). */
function extension(root: Json, schema: unknown, name: string): { value: unknown } | undefined {
  for (const part of [schema, resolveRef(root, schema)]) if (isObject(part) && name in part) return { value: part[name] };
  return undefined;
}

/** A field as the request schema describes it: its relation, default and flags. */
function bodyField(document: Json, name: string, schema: unknown, related: (model: string) => string | undefined): BodyField {
  const collection = fieldRelation(document, name, schema, related);
  const naming = declaredRelation(document, schema);
  const fallback = extension(document, schema, 'x-aiops-default');
  const writtenAs = extension(document, schema, 'x-aiops-written-as')?.value;
  return {
    name,
    schema,
    ...(collection ? { collection } : {}),
    ...(naming ? { naming } : {}),
    ...(fallback ? { default: fallback } : {}),
    ...(extension(document, schema, 'x-aiops-exclusive')?.value === true ? { exclusive: true as const } : {}),
    ...(typeof writtenAs === 'string' && writtenAs !== name ? { writtenAs } : {}),
  };
}

/**
 * The request body of an operation, for the body given: its writable fields (each related one with
 * its collection), read-only and required ones. Of a schema's `oneOf`/`anyOf` alternatives (one
 * object, or a list of them), the one the body takes is read, with its `required`.
 */
export function requestBodyShape(
  document: Json,
  endpoint: EndpointDocument,
  related: (model: string, fromPath: string) => string | undefined,
  body?: unknown,
): RequestBodyShape {
  const declared = operationParts(document, endpoint.specPath, endpoint.method)?.body?.schema;
  const schema = (body !== undefined && fittingAlternative(document, declared, body)) || declared;
  const shape = objectShape(document, schema);
  const fields = new Map(
    shape.properties.map(({ name, schema: field }) => [name, bodyField(document, name, field, (model) => related(model, endpoint.path))]),
  );
  const collection = endpointShape(endpoint).kind === 'collection';
  return {
    fields,
    readOnly: new Set([...propertyNames(document, declared)].filter((name) => !fields.has(name))),
    required: schema === declared ? endpoint.requiredFields : requiredFields(endpoint.method, endpoint.path, shape.required),
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

/** A schema's pattern as the validators read it (Unicode-aware), or undefined when it is none JavaScript can read. */
function patternOf(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== 'string') return undefined;
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // A pattern written for another engine (Python's): tried without the Unicode flag, else not checked.
    }
  }
  return undefined;
}

function textErrors(value: string | number, schema: Json, field: string): PlanError[] {
  const length = [...String(value)].length;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength)
    return [{ field, message: `is ${length} characters long, at most ${schema.maxLength} are allowed` }];
  if (typeof schema.minLength === 'number' && length < schema.minLength)
    return [
      { field, message: length === 0 ? 'may not be blank' : `is ${length} characters long, at least ${schema.minLength} are needed` },
    ];
  const pattern = patternOf(schema.pattern);
  if (pattern && !pattern.test(String(value))) return [{ field, message: `does not match the pattern ${String(schema.pattern)}` }];
  return [];
}

function listErrors(root: Json, value: unknown[], schema: Json, field: string, depth: number): PlanError[] {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems)
    return [{ field, message: `has ${value.length} items, at least ${schema.minItems} are needed` }];
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
    return [{ field, message: `has ${value.length} items, at most ${schema.maxItems} are allowed` }];
  return value.flatMap((item, index) => valueErrors(root, schema.items, item, `${field}[${index}]`, depth + 1));
}

/** An object's errors: required keys missing, keys a closed schema does not have, too many keys, each known key's value. */
function objectErrors(root: Json, value: Json, schema: Json, field: string, depth: number): PlanError[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const keys = Object.keys(value);
  if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties)
    return [{ field, message: `has ${keys.length} keys, at most ${schema.maxProperties} are allowed` }];
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  return [
    ...required.filter((name) => value[name] === undefined).map((name) => ({ field: `${field}.${name}`, message: 'is required' })),
    ...keys.flatMap((key) => {
      if (key in properties) return valueErrors(root, properties[key], value[key], `${field}.${key}`, depth + 1);
      if (schema.additionalProperties === false) {
        const closest = closestNames(key, Object.keys(properties));
        return [
          { field: `${field}.${key}`, message: `is not a key it takes${closest.length ? `; did you mean ${closest.join(' or ')}?` : ''}` },
        ];
      }
      return isObject(schema.additionalProperties)
        ? valueErrors(root, schema.additionalProperties, value[key], `${field}.${key}`, depth + 1)
        : [];
    }),
  ];
}

/**
 * What is wrong with one value against its schema: null where it may not be, a type the platform
 * does not take (as Django REST reads input: "5" is a number, 5 a text), a value outside an enum's
 * choices, a number out of range, a text too long, too short or off its pattern, a list with too
 * few or many items, an object's keys (required, unknown to a closed schema). Every `allOf` part
 * applies; of `oneOf`/`anyOf` alternatives one is enough, and when none fits, the errors shown are
 * those of the alternative a discriminator or the value's type picks.
 */
export function valueErrors(root: Json, schema: unknown, value: unknown, field: string, depth = 0): PlanError[] {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > MAX_DEPTH) return [];
  if (value === null) {
    const nullable =
      isNullable(root, schema) ||
      ['oneOf', 'anyOf', 'allOf'].some(
        (key) => Array.isArray(resolved[key]) && (resolved[key] as unknown[]).some((part) => isNullable(root, part)),
      );
    return nullable ? [] : [{ field, message: 'may not be null' }];
  }
  if (Array.isArray(resolved.allOf)) {
    const errors = resolved.allOf.flatMap((part) => valueErrors(root, part, value, field, depth + 1));
    if (errors.length) return errors;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const parts = resolved[key];
    if (!Array.isArray(parts) || parts.length === 0) continue;
    // A discriminator names the one alternative the value is checked against.
    const named = isObject(resolved.discriminator) ? fittingAlternative(root, resolved, value) : undefined;
    if (named !== undefined) {
      const errors = valueErrors(root, named, value, field, depth + 1);
      if (errors.length) return errors;
      continue;
    }
    const attempts = parts.map((part) => valueErrors(root, part, value, field, depth + 1));
    if (attempts.some((errors) => errors.length === 0)) continue;
    if (attempts.every((errors) => errors.some((error) => error.choices))) return [choiceError(root, resolved, value, field)];
    const fitting = fittingAlternative(root, resolved, value);
    return (fitting !== undefined && attempts[parts.indexOf(fitting)]) || attempts[0]!;
  }
  if (Array.isArray(resolved.enum)) return resolved.enum.includes(value) ? [] : [choiceError(root, resolved, value, field)];
  switch (resolved.type ?? (isObject(resolved.properties) ? 'object' : undefined)) {
    case 'string':
      if (typeof value !== 'string' && typeof value !== 'number') return [{ field, message: 'must be a text' }];
      return textErrors(value, resolved, field);
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
      return Array.isArray(value) ? listErrors(root, value, resolved, field, depth) : [{ field, message: 'must be a list' }];
    case 'object':
      return isObject(value) ? objectErrors(root, value, resolved, field, depth) : [{ field, message: 'must be an object' }];
    default:
      return isObject(value) && Array.isArray(resolved.required) ? objectErrors(root, value, resolved, field, depth) : [];
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
