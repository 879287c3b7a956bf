#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` through `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/run.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('aiops is not built yet: run `npm run build` (npm ci does it for you).\n');
  process.exit(1);
}
await import(entry.href);
