import { z } from 'zod';
import { platformTool } from './platform-tool.js';
import { success } from './tool-result.js';

export const EndpointSchemaInput = {
  method: z.string().min(1).max(10).describe('HTTP method of the operation, e.g. POST'),
  path: z
    .string()
    .min(1)
    .max(2_000)
    .describe('Path from the endpoint search, e.g. /api/ipam/vlans/ or /api/dcim/devices/{id}/ (a filled-in id works too)'),
};

const value = z.union([z.string(), z.number(), z.boolean()]);
const parameter = z.object({
  name: z.string(),
  type: z.string().describe('string, string(uuid), integer 1..4094, boolean, object; [] marks a list (repeat the parameter)'),
  required: z.literal(true).optional(),
  enum: z.array(value).optional(),
  enum_total: z.number().optional().describe('How many enum values exist when only the first are listed'),
  description: z.string().optional(),
});
const field = parameter.extend({
  nullable: z.literal(true).optional(),
  related: z.string().optional().describe("Collection path of the object this field points at: send that object's id (look it up there)"),
  fields: z.array(z.string()).optional().describe('Field names of a nested object'),
});

export const EndpointSchemaOutput = {
  method: z.string(),
  path: z.string().describe('Request path for the API request tool; fill {…} with the path parameters'),
  operation_id: z.string(),
  summary: z.string(),
  description: z.string().optional(),
  deprecated: z.literal(true).optional(),
  path_parameters: z.array(parameter),
  query_parameters: z.array(parameter).describe('Filters (main ones first), paging and ordering; pass them in params'),
  more_query_parameters: z
    .array(z.string())
    .optional()
    .describe('Further query parameter names, listed without types to keep the answer short'),
  filter_lookups: z.record(z.string(), z.string()).optional().describe('Suffixes most filters take, e.g. name__ic=core'),
  request_body: z
    .object({
      required: z.array(z.string()).describe('Fields the body must carry'),
      fields: z.array(field),
      more_fields: z.array(z.string()).optional().describe('Further optional field names'),
      list: z
        .enum(['required', 'accepted'])
        .optional()
        .describe('required: send a list of objects (with their id for bulk changes); accepted: a list creates many'),
    })
    .optional(),
  omitted: z.array(z.string()).optional().describe('What was shortened to keep the answer compact'),
};

export const openapiEndpointSchema = platformTool({
  name: 'openapi_endpoint_schema',
  title: 'Describe one platform API endpoint',
  description:
    'Tells how to form a request for one endpoint found by the endpoint search: path and query parameters (filters), and the request body with its required fields, types, enum values and which fields take the id of a related object. An unknown method and path answers with the closest endpoints.',
  input: EndpointSchemaInput,
  output: EndpointSchemaOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  chat: { offered: true },
  async handle({ method, path }, deps) {
    const schema = await deps.index.describe(method, path, deps.indexWaitMs);
    return success({ ...schema });
  },
});
