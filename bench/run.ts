/**
 * `npm run bench`: runs every benchmark in this folder, one child process each so that they do
 * not share a heap or an event loop, and prints their figures. `npm run bench -- NAME` runs one.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.log(`${file} failed (exit ${result.status ?? result.signal})`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
