import { isObject, refName, resolveRef, text, type Json } from './openapi-refs.js';

/**
 * What a JSON schema of an OpenAPI description says about a value, in the few words an agent
 * needs to write one: a type, enum values, a nested object's fields, and the resource a reference
 * points at. Works on OpenAPI 3 and Swagger 2 schemas alike (both are JSON Schema subsets).
 */
export interface ObjectShape {
  /** Writable properties, in the document's order. */
  properties: Array<{ name: string; schema: unknown }>;
  /** Writable properties the document requires. */
  required: string[];
  /** The value is a list of such objects. */
  list: boolean;
}

const COMBINERS = ['allOf', 'oneOf', 'anyOf'] as const;
const MAX_DEPTH = 6;

/** A property the server fills: read-only on the property itself or on what it references. */
export function isReadOnly(root: Json, schema: unknown): boolean {
  if (isObject(schema) && schema.readOnly === true) return true;
  const resolved = resolveRef(root, schema);
  return isObject(resolved) && resolved.readOnly === true;
}

/**
 * The object a schema describes, with `allOf` parts merged, `oneOf`/`anyOf` alternatives joined
 * and array items unwrapped (then `list` is set). Read-only properties are left out, also from
 * `required` (Nautobot 1.x lists `id`, `url` and `display` as required in its writable schemas).
 */
export function objectShape(root: Json, schema: unknown): ObjectShape {
  const properties = new Map<string, unknown>();
  const required = new Set<string>();
  let list = false;
  const visit = (value: unknown, depth: number, mandatory: boolean) => {
    const resolved = resolveRef(root, value);
    if (!isObject(resolved) || depth > MAX_DEPTH) return;
    if (resolved.type === 'array' || (resolved.items !== undefined && resolved.properties === undefined)) {
      list = true;
      visit(resolved.items, depth + 1, mandatory);
      return;
    }
    if (isObject(resolved.properties)) {
      for (const [name, property] of Object.entries(resolved.properties)) {
        if (!properties.has(name) && !isReadOnly(root, property)) properties.set(name, property);
      }
    }
    if (mandatory && Array.isArray(resolved.required))
      for (const name of resolved.required) if (typeof name === 'string') required.add(name);
    for (const key of COMBINERS) {
      const parts = resolved[key];
      // Every allOf part applies; of oneOf/anyOf alternatives, none is required for sure.
      if (Array.isArray(parts)) for (const part of parts) visit(part, depth + 1, mandatory && key === 'allOf');
    }
  };
  visit(schema, 0, true);
  return {
    properties: [...properties].map(([name, property]) => ({ name, schema: property })),
    required: [...required].filter((name) => properties.has(name)),
    list,
  };
}

/** Enum values a schema allows, through references and combiners; blank choices left out. */
export function enumValues(root: Json, schema: unknown, depth = 0): Array<string | number | boolean> {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > MAX_DEPTH) return [];
  const values: Array<string | number | boolean> = [];
  if (Array.isArray(resolved.enum)) {
    for (const value of resolved.enum)
      if ((typeof value === 'string' && value !== '') || typeof value === 'number' || typeof value === 'boolean') values.push(value);
  }
  for (const key of COMBINERS) {
    const parts = resolved[key];
    if (Array.isArray(parts)) for (const part of parts) values.push(...enumValues(root, part, depth + 1));
  }
  return [...new Set(values)];
}

/** `Brief`/`Nested` (and `Writable...Request`) wrappers name the model they point at. */
const MODEL_REFERENCE = /^(?:Brief|Nested)([A-Za-z0-9]+?)(?:Serializer_?)?(?:Request)?$/;

/** The model a reference property points at (`BriefVLANGroupRequest` → `VLANGroup`), through single-part combiners. */
export function referencedModel(root: Json, schema: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const name = refName(schema);
  const match = name ? MODEL_REFERENCE.exec(name) : null;
  if (match) return match[1];
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved)) return undefined;
  if (resolved.type === 'array') return referencedModel(root, resolved.items, depth + 1);
  for (const key of COMBINERS) {
    const parts = resolved[key];
    if (Array.isArray(parts)) {
      for (const part of parts) {
        const found = referencedModel(root, part, depth + 1);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/**
 * A short type: `string`, `string(uuid)`, `integer 1..4094`, `boolean`, `object`, `string[]`.
 * Combiners give their alternatives joined with `|`.
 */
export function typeLabel(root: Json, schema: unknown, depth = 0): string {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > MAX_DEPTH) return 'any';
  if (resolved.type === 'array' || resolved.items !== undefined) return `${typeLabel(root, resolved.items, depth + 1)}[]`;
  let type = text(resolved.type);
  if (!type) {
    for (const key of COMBINERS) {
      const parts = resolved[key];
      if (Array.isArray(parts) && parts.length > 0) {
        const labels = [...new Set(parts.map((part) => typeLabel(root, part, depth + 1)).filter((label) => label !== 'any'))];
        if (labels.length) return labels.join('|');
      }
    }
    if (isObject(resolved.properties) || isObject(resolved.additionalProperties)) return 'object';
    if (Array.isArray(resolved.enum)) return 'string';
    return 'any';
  }
  if (type === 'string' && text(resolved.format) && !['byte', 'binary', 'password'].includes(text(resolved.format)))
    type = `string(${text(resolved.format)})`;
  if ((type === 'integer' || type === 'number') && (typeof resolved.minimum === 'number' || typeof resolved.maximum === 'number')) {
    type = `${type} ${typeof resolved.minimum === 'number' ? resolved.minimum : ''}..${typeof resolved.maximum === 'number' ? resolved.maximum : ''}`;
  }
  return type;
}

/** A schema's own description or title, first line, at most `max` characters. */
export function shortDescription(root: Json, schema: unknown, max: number): string {
  const own = isObject(schema) ? text(schema.description) || text(schema.title) : '';
  const resolved = resolveRef(root, schema);
  const found = own || (isObject(resolved) ? text(resolved.description) || text(resolved.title) : '');
  // NetBox appends its enum labels ("* `active` - Active"): the enum already says them.
  const line = found
    .replace(/(^|\n)\s*\*\s+`[^`]*`\s+-\s+[^\n]*/g, '')
    .split(/\n\s*\n/)[0]!
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** True when the schema can be null. */
export function isNullable(root: Json, schema: unknown): boolean {
  if (isObject(schema) && schema.nullable === true) return true;
  const resolved = resolveRef(root, schema);
  return isObject(resolved) && (resolved.nullable === true || resolved['x-nullable'] === true);
}

/**
 * The name of the model an answer holds (`VMInterface`): its schema's `$ref` name or title, a list
 * answer (`results` of a page, or an array) read as its items; '' when it has none.
 */
export function modelName(root: Json, schema: unknown): string {
  let named = schema;
  let model = resolveRef(root, schema);
  if (isObject(model) && isObject(model.properties) && model.properties.results !== undefined)
    model = resolveRef(root, (named = model.properties.results));
  if (isObject(model) && model.type === 'array') model = resolveRef(root, (named = model.items));
  return refName(named) ?? (isObject(model) ? text(model.title) : '');
}

/** NetBox writes enum labels into descriptions: "* `active` - Active". */
const ENUM_LABEL = /\*\s+`[^`]*`\s+-\s+([^\n*]+)/g;

/**
 * What a description says about a model in words: its title and description, and each property's
 * title, description, enum values and enum labels (Nautobot's `{value, label}` objects, NetBox's labelled
 * descriptions). A list answer (`results` of a page, or an array) is read as its items.
 */
export function modelVocabulary(root: Json, schema: unknown): string[] {
  let model = resolveRef(root, schema);
  if (isObject(model) && isObject(model.properties) && model.properties.results !== undefined)
    model = resolveRef(root, model.properties.results);
  if (isObject(model) && model.type === 'array') model = resolveRef(root, model.items);
  if (!isObject(model)) return [];
  const found = new Set<string>([text(model.title), text(model.description)]);
  const properties = new Map<string, unknown>();
  const collect = (value: unknown, depth: number) => {
    const resolved = resolveRef(root, value);
    if (!isObject(resolved) || depth > 3) return;
    if (isObject(resolved.properties))
      for (const [name, property] of Object.entries(resolved.properties)) if (!properties.has(name)) properties.set(name, property);
    for (const key of COMBINERS) if (Array.isArray(resolved[key])) for (const part of resolved[key] as unknown[]) collect(part, depth + 1);
  };
  collect(model, 0);
  for (const property of properties.values()) {
    const resolved = resolveRef(root, property);
    if (!isObject(resolved)) continue;
    found.add(text(resolved.title));
    found.add(shortDescription(root, property, 120));
    for (const value of enumValues(root, property)) found.add(String(value));
    // Nautobot answers a choice as {value, label}.
    if (isObject(resolved.properties))
      for (const part of [resolved.properties.value, resolved.properties.label])
        for (const value of enumValues(root, part)) found.add(String(value));
    for (const match of text(resolved.description).matchAll(ENUM_LABEL)) found.add(match[1]!.trim());
  }
  found.delete('');
  return [...found];
}

/** A text field that names a record of another collection, as the document declares it (`x-aiops-related`). */
export interface DeclaredRelation {
  /** The collection's request path (`/api/extras/statuses/`). */
  collection: string;
  /** The field (and list filter) that names a record besides its id (`name`). */
  name?: string;
  /** A name matches in any case. */
  ignoreCase: boolean;
}

/** The relation a field declares with `x-aiops-related`, on the field or what it references. */
export function declaredRelation(root: Json, schema: unknown): DeclaredRelation | undefined {
  const declared = [schema, resolveRef(root, schema)].map((part) => (isObject(part) ? part['x-aiops-related'] : undefined)).find(isObject);
  if (!declared || typeof declared.collection !== 'string') return undefined;
  return {
    collection: declared.collection,
    ...(typeof declared.name === 'string' ? { name: declared.name } : {}),
    ignoreCase: declared.ignore_case === true,
  };
}

/** The JSON type a schema names, on itself or in an `allOf` part; undefined when none does. */
function schemaType(root: Json, schema: unknown, depth = 0): unknown {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved) || depth > MAX_DEPTH) return undefined;
  const own = resolved.type ?? (resolved.items !== undefined ? 'array' : isObject(resolved.properties) ? 'object' : undefined);
  if (own !== undefined || !Array.isArray(resolved.allOf)) return own;
  return resolved.allOf.map((part) => schemaType(root, part, depth + 1)).find((type) => type !== undefined);
}

/** Whether a value has the JSON type a schema names (a schema that names none takes any). */
function typeFits(root: Json, schema: unknown, value: unknown): boolean {
  const type = schemaType(root, schema);
  if (type === undefined) return true;
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isObject(value);
  return !Array.isArray(value) && !isObject(value);
}

/**
 * The `oneOf`/`anyOf` alternative that applies to a value, as a validator reads it: the one a
 * discriminator's property maps the value to, else the only one whose type the value has (an object
 * or a list of them). Undefined when none or several do.
 */
export function fittingAlternative(root: Json, schema: unknown, value: unknown): unknown {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved)) return undefined;
  const parts = [resolved.oneOf, resolved.anyOf].find((found): found is unknown[] => Array.isArray(found) && found.length > 0);
  if (!parts) return undefined;
  const discriminator = isObject(resolved.discriminator) ? resolved.discriminator : undefined;
  if (discriminator && typeof discriminator.propertyName === 'string' && isObject(value)) {
    const tag = value[discriminator.propertyName];
    const mapped = isObject(discriminator.mapping) ? discriminator.mapping[String(tag)] : undefined;
    const named = parts.find((part) =>
      typeof mapped === 'string' ? isObject(part) && part.$ref === mapped : refName(part) === String(tag),
    );
    if (named) return named;
  }
  const fitting = parts.filter((part) => typeFits(root, part, value));
  return fitting.length === 1 ? fitting[0] : undefined;
}
