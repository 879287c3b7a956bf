/**
 * The integration tier's setup, run once before any file: child processes run the CLI as an
 * operator does, `bin/aiops.js` over the compiled `dist/`, which starts in half the CPU time of the
 * TypeScript entry under a loader. So that a test never runs code older than the sources, `dist/`
 * is rebuilt first when any compiled source is newer than it (`npm ci` builds it; an edit does not).
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packagePath } from '../../shared/package-root.js';

const BUILD_CONFIG = 'tsconfig.build.json';
/** Written by every build, like every other output file. */
const BUILD_OUTPUT = 'dist/cli/run.js';

/** The newest modification time among the files the build compiles (its `include` folders, its configs). */
function newestSourceTime(): number {
  const config = JSON.parse(execFileSync(process.execPath, [tscPath(), '-p', packagePath(BUILD_CONFIG), '--showConfig'], { encoding: 'utf8' })) as { files?: string[] };
  const inputs = [...(config.files ?? []), BUILD_CONFIG, 'tsconfig.json'];
  return Math.max(...inputs.map((file) => statSync(packagePath(file)).mtimeMs));
}

function tscPath(): string {
  return createRequire(import.meta.url).resolve('typescript/bin/tsc');
}

function builtTime(): number {
  try {
    return statSync(packagePath(BUILD_OUTPUT)).mtimeMs;
  } catch {
    return 0;
  }
}

export function mochaGlobalSetup(): void {
  if (builtTime() >= newestSourceTime()) return;
  process.stdout.write(`integration tier: dist/ is older than the sources; building it (tsc -p ${BUILD_CONFIG})\n`);
  execFileSync(process.execPath, [tscPath(), '-p', packagePath(BUILD_CONFIG)], { cwd: packagePath('.'), stdio: 'inherit' });
}
