import type { EndpointDocument, ParsedDescription } from './endpoint-document.js';
import { endpointPurpose, endpointShape, segmentTerms } from './endpoint-shape.js';
import { LOOKUP_MEANINGS, RESPONSE_PARAMETERS, splitLookup } from './filters.js';
import { operationParts, type OperationParameter } from './openapi-operation.js';
import { isObject, resolveRef, type Json } from './openapi-refs.js';
import type { HttpMethod } from '../platform/platform.port.js';
import { OperationLookup } from './operation-lookup.js';
import { declaredRelation, enumValues, isNullable, objectShape, referencedModel, shortDescription, typeLabel } from './schema-shape.js';

/** One path or query parameter. */
export interface ParameterSummary {
  name: string;
  type: string;
  required?: true;
  enum?: Array<string | number | boolean>;
  /** How many enum values there are when `enum` lists only the first ones. */
  enum_total?: number;
  description?: string;
}

/** One request-body field. */
export interface FieldSummary {
  name: string;
  type: string;
  required?: true;
  nullable?: true;
  enum?: Array<string | number | boolean>;
  enum_total?: number;
  /** The collection whose object this field points at: give that object's id (find it there). */
  related?: string;
  /** Field names of a nested object. */
  fields?: string[];
  description?: string;
}

/** Everything an agent needs to form one request, compact. */
export interface OperationSchema {
  method: HttpMethod;
  /** The request path, server prefix included; fill `{...}` with path parameters. */
  path: string;
  operation_id: string;
  /** What the operation does: the description's summary, else a line from method and path. */
  summary: string;
  description?: string;
  deprecated?: true;
  path_parameters: ParameterSummary[];
  /** Filters and other query parameters; main filters first. Lookup variants (`name__ic`) are folded into `filter_lookups`. */
  query_parameters: ParameterSummary[];
  /** Query parameter names left out of `query_parameters` to fit the budget. */
  more_query_parameters?: string[];
  /** Lookup suffixes the filters take (`name__ic=core`), with what each does. */
  filter_lookups?: Record<string, string>;
  request_body?: {
    /** Fields the body must carry. */
    required: string[];
    fields: FieldSummary[];
    /** Field names left out of `fields` to fit the budget. */
    more_fields?: string[];
    /** `required`: the body is a list of such objects (each with its `id` for bulk changes); `accepted`: a list creates many at once. */
    list?: 'required' | 'accepted';
  };
  /** What was shortened to stay under the size budget. */
  omitted?: string[];
}

export interface DescribeOptions {
  /** Largest answer, in characters of compact JSON. */
  budgetChars?: number;
}

export const DEFAULT_SCHEMA_BUDGET_CHARS = 5_000;
const ENUM_LIMIT = 30;
const DESCRIPTION_CHARS = 120;
const NESTED_FIELDS = 8;

/** Where the ids a field takes come from: the collection of the model it names, nearest namespace first. */
export type RelatedResolver = (model: string, fromPath: string) => string | undefined;

/** Builds a RelatedResolver over the collections of a description (`VLANGroup`, `vlan_group` → `/api/ipam/vlan-groups/`). */
export function relatedCollections(endpoints: EndpointDocument[]): RelatedResolver {
  const byCompound = new Map<string, EndpointDocument[]>();
  for (const endpoint of endpoints) {
    const shape = endpointShape(endpoint);
    if (endpoint.method !== 'GET' || shape.kind !== 'collection') continue;
    const compound = shape.resource.at(-1);
    if (!compound) continue;
    byCompound.set(compound, [...(byCompound.get(compound) ?? []), endpoint]);
  }
  return (model, fromPath) => {
    const compound = segmentTerms(model.replace(/([a-z0-9])([A-Z])/g, '$1_$2')).at(-1);
    const candidates = compound ? byCompound.get(compound) : undefined;
    if (!candidates?.length) return undefined;
    const namespace = fromPath.split('/').slice(0, -3).join('/');
    return (candidates.find((candidate) => candidate.path.startsWith(namespace)) ?? candidates[0]!).path;
  };
}

function enumFields(values: Array<string | number | boolean>): Pick<FieldSummary, 'enum' | 'enum_total'> {
  if (values.length === 0) return {};
  return values.length > ENUM_LIMIT ? { enum: values.slice(0, ENUM_LIMIT), enum_total: values.length } : { enum: values };
}

function parameterSummary(root: Json, parameter: OperationParameter): ParameterSummary {
  const description = shortDescription(
    root,
    { ...(isObject(parameter.schema) ? parameter.schema : {}), ...(parameter.description ? { description: parameter.description } : {}) },
    DESCRIPTION_CHARS,
  );
  return {
    name: parameter.name,
    type: typeLabel(root, parameter.schema),
    ...(parameter.required ? { required: true as const } : {}),
    ...enumFields(enumValues(root, parameter.schema)),
    ...(description ? { description } : {}),
  };
}

/** Field names of a nested (non-reference) object, one level down. */
function nestedFields(root: Json, schema: unknown): string[] | undefined {
  const resolved = resolveRef(root, schema);
  if (!isObject(resolved)) return undefined;
  const item = resolved.type === 'array' ? resolveRef(root, resolved.items) : resolved;
  if (!isObject(item) || !(isObject(item.properties) || Array.isArray(item.allOf))) return undefined;
  const names = objectShape(root, item).properties.map(({ name }) => name);
  return names.length ? names.slice(0, NESTED_FIELDS) : undefined;
}

/**
 * The collection a request-body field's value points into (its related object's), or undefined for
 * a plain field: one the field declares (`x-aiops-related`), a reference schema names its model
 * (NetBox's `BriefSiteRequest`), and Nautobot 1.x writes a relation as the related object's UUID,
 * named after the model (`device_type`).
 */
export function fieldRelation(
  root: Json,
  name: string,
  schema: unknown,
  related: (model: string) => string | undefined,
): string | undefined {
  const declared = declaredRelation(root, schema);
  if (declared) return declared.collection;
  const model = referencedModel(root, schema);
  if (model) return related(model);
  return /uuid|integer/.test(typeLabel(root, schema)) && name !== 'id' ? related(name.replace(/_id$/, '')) : undefined;
}

function fieldSummary(
  root: Json,
  name: string,
  schema: unknown,
  required: boolean,
  related: (model: string) => string | undefined,
): FieldSummary {
  const model = referencedModel(root, schema);
  const type = typeLabel(root, schema);
  const relation = fieldRelation(root, name, schema, related);
  const description = shortDescription(root, schema, DESCRIPTION_CHARS);
  const nested = model ? undefined : nestedFields(root, schema);
  return {
    name,
    // A reference takes the related object's id (or, on NetBox, an object of its unique fields).
    type: model ? (type.endsWith('[]') ? 'id or object[]' : 'id or object') : type,
    ...(required ? { required: true as const } : {}),
    ...(isNullable(root, schema) ? { nullable: true as const } : {}),
    ...enumFields(enumValues(root, schema)),
    ...(relation ? { related: relation } : {}),
    ...(nested ? { fields: nested } : {}),
    ...(description ? { description } : {}),
  };
}

/** Query parameters with lookup variants folded away, main filters first. */
function queryParameters(
  root: Json,
  endpoint: EndpointDocument,
  parameters: OperationParameter[],
): { list: ParameterSummary[]; lookups: string[] } {
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const bases = new Set(query.map(({ name }) => name));
  const lookups = new Set<string>();
  const plain = query.filter(({ name }) => {
    const { base, lookup } = splitLookup(name);
    if (lookup && bases.has(base)) {
      lookups.add(lookup);
      return false;
    }
    return true;
  });
  const rank = (name: string) => {
    const main = endpoint.filters.indexOf(name);
    if (main >= 0) return main;
    return RESPONSE_PARAMETERS.has(name) ? 10_000 : 1_000;
  };
  const ordered = plain
    .map((parameter, index) => ({ parameter, index }))
    .sort((a, b) => rank(a.parameter.name) - rank(b.parameter.name) || a.index - b.index);
  return { list: ordered.map(({ parameter }) => parameterSummary(root, parameter)), lookups: [...lookups] };
}

/** The full description of one operation, before fitting it to a budget. */
function fullSchema(root: Json, endpoint: EndpointDocument, related: RelatedResolver): OperationSchema {
  const parts = operationParts(root, endpoint.specPath, endpoint.method);
  const parameters = parts?.parameters ?? [];
  const query = queryParameters(root, endpoint, parameters);
  const description = endpoint.description.replace(/\s+/g, ' ').trim();
  const schema: OperationSchema = {
    method: endpoint.method,
    path: endpoint.path,
    operation_id: endpoint.operationId,
    summary: endpoint.summary || endpointPurpose(endpoint),
    ...(description && description !== endpoint.summary
      ? { description: description.length > 240 ? `${description.slice(0, 239)}…` : description }
      : {}),
    ...(endpoint.deprecated ? { deprecated: true as const } : {}),
    path_parameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameterSummary(root, parameter)),
    query_parameters: query.list,
  };
  if (query.lookups.length)
    schema.filter_lookups = Object.fromEntries(query.lookups.map((lookup) => [`__${lookup}`, LOOKUP_MEANINGS[lookup] ?? lookup]));
  if (parts?.body) {
    const shape = objectShape(root, parts.body.schema);
    const required = new Set(endpoint.requiredFields);
    const fields = shape.properties.map(({ name, schema: fieldSchema }) =>
      fieldSummary(root, name, fieldSchema, required.has(name), (model) => related(model, endpoint.path)),
    );
    fields.sort((a, b) => Number(Boolean(b.required)) - Number(Boolean(a.required)));
    const bulk = endpointShape(endpoint).kind === 'collection' && endpoint.method !== 'POST';
    schema.request_body = {
      required: endpoint.requiredFields,
      fields,
      ...(bulk || shape.list
        ? { list: 'required' as const }
        : endpoint.method === 'POST' && endpointShape(endpoint).kind === 'collection'
          ? { list: 'accepted' as const }
          : {}),
    };
  }
  return schema;
}

const size = (schema: OperationSchema) => JSON.stringify(schema).length;

/**
 * Shortening steps, gentlest first: each is applied only while the answer is over budget, and
 * each says what it left out so that the agent knows what to ask for.
 */
const SHORTENINGS: Array<{ note: string; apply: (schema: OperationSchema, budget: number) => void }> = [
  {
    note: 'parameter descriptions',
    apply: (schema) => {
      for (const parameter of [...schema.path_parameters, ...schema.query_parameters]) delete parameter.description;
    },
  },
  {
    note: 'descriptions of optional body fields',
    apply: (schema) => {
      for (const field of schema.request_body?.fields ?? []) if (!field.required) delete field.description;
    },
  },
  {
    note: 'enum values beyond the first 10',
    apply: (schema) => {
      for (const item of [...schema.query_parameters, ...(schema.request_body?.fields ?? [])]) {
        if (item.enum && item.enum.length > 10) {
          item.enum_total ??= item.enum.length;
          item.enum = item.enum.slice(0, 10);
        }
      }
    },
  },
  {
    note: 'types of the less used query parameters (names in more_query_parameters)',
    apply: (schema) => moveQueryNames(schema, 12),
  },
  {
    note: 'details of the less used body fields (names in request_body.more_fields)',
    apply: (schema) => moveBodyNames(schema, 15),
  },
  {
    note: 'all descriptions',
    apply: (schema) => {
      delete schema.description;
      for (const field of schema.request_body?.fields ?? []) delete field.description;
    },
  },
  {
    note: 'meanings of the filter lookups',
    apply: (schema) => {
      if (schema.filter_lookups)
        schema.filter_lookups = Object.fromEntries(Object.keys(schema.filter_lookups).map((suffix) => [suffix, '']));
    },
  },
  {
    note: 'names of further query parameters (most fields filter by their name)',
    apply: (schema, budget) => {
      while (schema.more_query_parameters?.length && size(schema) > budget)
        schema.more_query_parameters = schema.more_query_parameters.slice(0, Math.floor(schema.more_query_parameters.length / 2));
    },
  },
  {
    note: 'names of further optional body fields',
    apply: (schema, budget) => {
      const body = schema.request_body;
      while (body?.more_fields?.length && size(schema) > budget)
        body.more_fields = body.more_fields.slice(0, Math.floor(body.more_fields.length / 2));
    },
  },
];

const PAGING = new Set(['limit', 'offset', 'page', 'cursor', 'per_page', 'page_size']);

function moveQueryNames(schema: OperationSchema, keep: number): void {
  const kept = schema.query_parameters.filter((parameter, index) => index < keep || PAGING.has(parameter.name));
  const moved = schema.query_parameters.filter((parameter) => !kept.includes(parameter)).map(({ name }) => name);
  if (moved.length === 0) return;
  schema.query_parameters = kept;
  schema.more_query_parameters = [...(schema.more_query_parameters ?? []), ...moved];
}

function moveBodyNames(schema: OperationSchema, keep: number): void {
  const body = schema.request_body;
  if (!body) return;
  const kept = body.fields.filter((field, index) => field.required || field.related || index < keep);
  const moved = body.fields.filter((field) => !kept.includes(field)).map(({ name }) => name);
  if (moved.length === 0) return;
  body.fields = kept;
  body.more_fields = [...(body.more_fields ?? []), ...moved];
}

/**
 * Describes one operation for an agent: summary, path and query parameters (main filters first,
 * lookup variants folded), and the request body (required fields, types, enum values, the
 * collection a related field's id comes from, nested field names), `$ref`s resolved, shortened
 * step by step until it fits `budgetChars` of compact JSON.
 */
export function describeOperation(
  document: Json,
  endpoint: EndpointDocument,
  related: RelatedResolver,
  options: DescribeOptions = {},
): OperationSchema {
  const budget = options.budgetChars ?? DEFAULT_SCHEMA_BUDGET_CHARS;
  const schema = fullSchema(document, endpoint, related);
  schema.omitted = [];
  for (const step of SHORTENINGS) {
    if (size(schema) <= budget) break;
    // The note is in place while the step runs, so the budget counts it.
    schema.omitted.push(step.note);
    const before = size(schema);
    step.apply(schema, budget);
    if (size(schema) >= before) schema.omitted.pop();
  }
  if (schema.omitted.length === 0) delete schema.omitted;
  return schema;
}

/**
 * Describes the operations of one parsed description by method and path, as an agent writes
 * them (request path or path key, ids filled in or not). Unknown operations throw
 * UnknownOperationError with the closest ones.
 */
export class OperationDescriber {
  private readonly lookup: OperationLookup;
  private readonly related: RelatedResolver;

  constructor(private readonly description: ParsedDescription) {
    this.lookup = new OperationLookup(description.endpoints);
    this.related = relatedCollections(description.endpoints);
  }

  /** Every operation of the description, in its order. */
  get endpoints(): readonly EndpointDocument[] {
    return this.description.endpoints;
  }

  /** The description itself (its schemas, for checking a request body). */
  get document(): Json {
    return this.description.document;
  }

  /** The endpoint at a method and path, or undefined. */
  operation(method: string, path: string): EndpointDocument | undefined {
    return this.lookup.match(method, path);
  }

  /** The endpoint at a method and path, or UnknownOperationError naming the closest ones. */
  find(method: string, path: string): EndpointDocument {
    return this.lookup.find(method, path);
  }

  /** The collection (request path) whose objects a field of a request to `fromPath` points at, by the model it names. */
  relatedCollection(model: string, fromPath: string): string | undefined {
    return this.related(model, fromPath);
  }

  describe(method: string, path: string, options: DescribeOptions = {}): OperationSchema {
    return describeOperation(this.description.document, this.lookup.find(method, path), this.related, options);
  }
}
