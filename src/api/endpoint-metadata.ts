import { isNode, resolved, type DocumentNode, type OpenApiDocument } from './openapi.js';
import type { Schemas } from './openapi-types.js';

/**
 * The object a write takes: `allOf` parts merged (properties and required fields), and of a
 * `oneOf` (one record or a list of them) the object.
 */
function objectSchema(document: OpenApiDocument, schema: unknown): { properties: DocumentNode; required: string[] } {
  const node = resolved(document, schema);
  if (Array.isArray(node.oneOf)) {
    const object = node.oneOf.map((branch) => objectSchema(document, branch)).find((branch) => Object.keys(branch.properties).length > 0);
    return object ?? { properties: {}, required: [] };
  }
  const parts = Array.isArray(node.allOf) ? node.allOf.map((part) => objectSchema(document, part)) : [];
  return {
    properties: Object.assign({}, ...parts.map((part) => part.properties), isNode(node.properties) ? node.properties : {}) as DocumentNode,
    required: [...parts.flatMap((part) => part.required), ...(Array.isArray(node.required) ? (node.required as string[]) : [])],
  };
}

type FieldMetadata = Schemas['FieldMetadata'];

const TYPES: Readonly<Record<string, FieldMetadata['type']>> = {
  string: 'string',
  integer: 'integer',
  number: 'float',
  boolean: 'boolean',
  array: 'list',
  object: 'json',
};

function fieldMetadata(name: string, schema: DocumentNode, required: boolean): FieldMetadata {
  const numberOf = (key: string) => {
    const value = schema[key];
    return typeof value === 'number' ? value : undefined;
  };
  const limits = {
    max_length: numberOf('maxLength'),
    min_length: numberOf('minLength'),
    min_value: numberOf('minimum'),
    max_value: numberOf('maximum'),
  };
  return {
    type: Array.isArray(schema.enum) ? 'choice' : (TYPES[String(schema.type)] ?? 'string'),
    required,
    // The record's id is the service's to choose: it names the record in bulk writes only.
    read_only: name === 'id',
    label: (name.charAt(0).toUpperCase() + name.slice(1)).replace(/_/g, ' '),
    ...(typeof schema.description === 'string' ? { help_text: schema.description } : {}),
    ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
    ...(Array.isArray(schema.enum)
      ? { choices: schema.enum.map((value) => ({ value: String(value), display_name: String(value), display: String(value) })) }
      : {}),
  };
}

/** A field's schema with its `allOf` parts merged in (an enum wrapped to carry a declaration beside it). */
function fieldSchema(document: OpenApiDocument, schema: unknown): DocumentNode {
  const node = resolved(document, schema);
  const parts = Array.isArray(node.allOf) ? node.allOf.map((part) => fieldSchema(document, part)) : [];
  return Object.assign({}, ...parts, node) as DocumentNode;
}

/** Each field a write's JSON body takes, described. */
function writeFields(document: OpenApiDocument, write: DocumentNode): Record<string, FieldMetadata> {
  const body = resolved(document, write.requestBody);
  const content = isNode(body.content) ? resolved(document, body.content['application/json']) : {};
  const { properties, required } = objectSchema(document, content.schema);
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, fieldMetadata(name, fieldSchema(document, schema), required.includes(name))]),
  );
}

/**
 * What Nautobot (Django REST framework) answers OPTIONS with, from the document: the endpoint's
 * name and description, the media types, and under `actions` the write of this path (POST on a
 * list, PUT on a record) with each field it takes, when `may` says the caller may make it.
 */
export function endpointMetadata(
  document: OpenApiDocument,
  path: string,
  may: (operation: object) => boolean,
): Schemas['EndpointMetadata'] {
  const item = resolved(document, document.paths[path]);
  const read = resolved(document, item.get ?? item.options);
  const method = path.endsWith('}/') ? 'put' : 'post';
  const write = item[method];
  return {
    name: typeof read.summary === 'string' ? read.summary : path,
    description: typeof read.description === 'string' ? read.description : '',
    renders: ['application/json'],
    parses: ['application/json'],
    ...(isNode(write) && may(write) ? { actions: { [method.toUpperCase()]: writeFields(document, write) } } : {}),
  };
}
