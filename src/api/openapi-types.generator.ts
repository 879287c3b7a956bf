import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { packagePath } from '../kernel/package-root.js';

/** The committed TypeScript types (and enum lists) of src/api/openapi.yaml, imported by the code and the web pages. */
export const OPENAPI_TYPES_FILE = packagePath('src/api/openapi-types.ts');

const HEADER = `/**
 * Generated from src/api/openapi.yaml by \`npm run generate:types\`: do not edit. A test fails when this
 * file and the document disagree.
 */

`;

/**
 * Added to the generated types: bodies by schema name, by operation id and status (`ResponseBody<'chat_create', 200>`,
 * `RequestBody<'users_tokens_create'>`), and a page of a listing with its items typed.
 */
const INJECTED = `export type Schemas = components['schemas'];
export type ResponseBody<Operation extends keyof operations, Status extends keyof operations[Operation]['responses']> =
  operations[Operation]['responses'][Status] extends { content: { 'application/json': infer Body } } ? Body : never;
export type RequestBody<Operation extends keyof operations> =
  operations[Operation] extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;
export type Page<Item> = Omit<Schemas['Page'], 'results'> & { results: Item[] };
`;

/**
 * The choices of every named schema that is an enum (`ENUMS.LLMProvider`, `ENUMS.Permission`), as
 * lists the code and the pages read at run time: each list is written once, in the document.
 */
async function renderEnums(): Promise<string> {
  const document = parse(await readFile(packagePath('src/api/openapi.yaml'), 'utf8')) as {
    components: { schemas: Record<string, { enum?: unknown[] }> };
  };
  const lists = Object.entries(document.components.schemas)
    .filter(([, schema]) => Array.isArray(schema.enum))
    .map(([name, schema]) => `  ${name}: ${JSON.stringify(schema.enum)},`);
  return `
/** The choices of each enum schema, in the document's order. */
export const ENUMS = {
${lists.join('\n')}
} as const satisfies { [Name in keyof Schemas]?: ReadonlyArray<Schemas[Name]> };
`;
}

/** The text of OPENAPI_TYPES_FILE as the current src/api/openapi.yaml gives it. */
export async function renderOpenApiTypes(): Promise<string> {
  const ast = await openapiTS(pathToFileURL(packagePath('src/api/openapi.yaml')), {
    silent: true,
    emptyObjectsUnknown: true,
    // The names the routes and pages read bodies by: `Schemas['ChatJob']`, `ResponseBody<'chat_create', 200>`.
    inject: INJECTED,
  });
  return HEADER + astToString(ast) + (await renderEnums());
}

export async function writeOpenApiTypes(): Promise<void> {
  await writeFile(OPENAPI_TYPES_FILE, await renderOpenApiTypes());
}
