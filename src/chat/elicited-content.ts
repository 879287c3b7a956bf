import type { ElicitedValue } from '../mcp-client/mcp-connector.port.js';
import { z } from 'zod';
import { ValidationError } from '../kernel/errors.js';

/** The property types a form may ask for (the protocol's restricted schema: flat, primitives and multi-select lists of strings). */
const FLAT_TYPES: ReadonlySet<unknown> = new Set(['string', 'number', 'integer', 'boolean', 'array']);

/**
 * The user's answer to a form checked against the schema the server asked with: only its
 * properties, each of its type, format, bounds and choices, the required ones present. A schema
 * outside the protocol's flat form takes no answer but decline or cancel.
 */
export function checkElicitedContent(
  schema: Record<string, unknown> | undefined,
  content: Record<string, unknown>,
): Record<string, ElicitedValue> {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) {
    throw ValidationError.field('content', 'The question asks for no form: answer decline or cancel.');
  }
  const nested = Object.entries(properties).find(([, property]) => !FLAT_TYPES.has((property as { type?: unknown } | null)?.type));
  if (nested)
    throw ValidationError.field(
      'content',
      `The server asked for '${nested[0]}' in a form the protocol does not allow: answer decline or cancel.`,
    );
  const unknown = Object.keys(content).find((name) => !Object.hasOwn(properties, name));
  if (unknown !== undefined) throw ValidationError.field(`content.${unknown}`, 'The question does not ask for this field.');
  let parsed;
  try {
    parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(content);
  } catch {
    throw ValidationError.field('content', "The question's schema cannot be read: answer decline or cancel.");
  }
  const issue = parsed.error?.issues[0];
  if (issue) throw ValidationError.field(['content', ...issue.path.map(String)].join('.'), issue.message);
  // Every field is one the schema asks for, of the type it asks (each a flat one).
  return content as Record<string, ElicitedValue>;
}
