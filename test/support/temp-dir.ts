import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Call inside a describe: each of its tests gets a fresh temporary folder, removed afterwards. */
export function tempDirPerTest(prefix: string): () => string {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), `aiops-${prefix}-`));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}
