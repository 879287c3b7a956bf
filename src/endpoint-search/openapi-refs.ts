/** Reading an OpenAPI 3 or Swagger 2 document as plain JSON: objects, texts and local `$ref`s. */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Follows a local `$ref` (`#/components/schemas/Site`, `#/definitions/Site`) to what it names,
 * through chains of references. A remote, broken or circular reference resolves to `{}`, so a
 * reader never loops and never throws on a careless document.
 */
export function resolveRef(root: Json, value: unknown, seen = new Set<string>()): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string') return value;
  const ref = value.$ref;
  if (!ref.startsWith('#/') || seen.has(ref)) return {};
  seen.add(ref);
  let target: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isObject(target)) return {};
    target = target[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return resolveRef(root, target, seen);
}

/** The last part of a `$ref` (`BriefSiteRequest`), or undefined when `value` is no reference. */
export function refName(value: unknown): string | undefined {
  return isObject(value) && typeof value.$ref === 'string' ? value.$ref.split('/').at(-1) : undefined;
}
