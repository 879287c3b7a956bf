import { createHash } from 'node:crypto';

/** What every provider accepts as a function name. */
const MAX_NAME = 64;

function sanitize(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'tool';
}

function fit(name: string, seed: string): string {
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(seed).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

export interface ToolOrigin {
  server: string;
  tool: string;
}

/**
 * The names the model sees, one per tool, in the same order: the tool's own name when no other
 * server (and no `reserved` name) is by that name, `<server>_<tool>` when two are. Names are made safe for every
 * provider (letters, digits, `_` and `-`, at most 64 characters) and are unique.
 */
export function exposedToolNames(origins: ToolOrigin[], reserved: ReadonlySet<string> = new Set()): string[] {
  const plain = origins.map((origin) => fit(sanitize(origin.tool), `${origin.server}\n${origin.tool}`));
  // Names that differ only in case count as the same: a server's `Platform_x` must not pass for a
  // built-in `platform_x` on an approval screen. A reserved name (a built-in tool's) counts as taken.
  const key = (name: string) => name.toLowerCase();
  const uses = new Map<string, number>([...reserved].map((name) => [key(name), 1]));
  for (const name of plain) uses.set(key(name), (uses.get(key(name)) ?? 0) + 1);
  const names = origins.map((origin, index) => {
    const name = plain[index] as string;
    return (uses.get(key(name)) ?? 0) > 1 ? fit(`${sanitize(origin.server)}_${name}`, `${origin.server}\n${origin.tool}`) : name;
  });
  // Prefixing can still collide (two servers whose names sanitize alike): number the later ones,
  // from one counter per name (a list of thousands of tools by one name stays linear).
  const taken = new Set<string>([...reserved].map(key));
  const next = new Map<string, number>();
  return names.map((name, index) => {
    let unique = name;
    for (let n = next.get(key(name)) ?? 2; taken.has(key(unique)); n++) {
      unique = fit(`${name}_${n}`, `${index}\n${n}\n${name}`);
      next.set(key(name), n + 1);
    }
    taken.add(key(unique));
    return unique;
  });
}
