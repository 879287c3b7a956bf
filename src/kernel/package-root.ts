import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project folder (where package.json is), found from this file so that the same lookup works
 * from the TypeScript sources and from the compiled `dist/` tree.
 */
function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    // A plain Error: a broken installation, found on import before any edge can map an error.
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();

/** Absolute path of a file shipped with the project, e.g. `packagePath('infra/redis/redis.conf')`. */
export function packagePath(relative: string): string {
  return path.join(PACKAGE_ROOT, relative);
}
