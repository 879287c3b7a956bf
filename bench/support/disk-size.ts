import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Megabytes the files under `dir` hold (their lengths, not the blocks they take). */
export function directoryMegabytes(dir: string): number {
  const bytes = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
