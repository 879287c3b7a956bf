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
  // A reserved name (a built-in tool's) counts as taken: a server's tool by that name is prefixed.
  const uses = new Map<string, number>([...reserved].map((name) => [name, 1]));
  for (const name of plain) uses.set(name, (uses.get(name) ?? 0) + 1);
  const names = origins.map((origin, index) => {
    const name = plain[index] as string;
    return (uses.get(name) ?? 0) > 1 ? fit(`${sanitize(origin.server)}_${name}`, `${origin.server}\n${origin.tool}`) : name;
  });
  // Prefixing can still collide (two servers whose names sanitize alike): number the later ones.
  const taken = new Set<string>(reserved);
  return names.map((name, index) => {
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = fit(`${name}_${n}`, `${index}\n${n}\n${name}`);
    taken.add(unique);
    return unique;
  });
}
