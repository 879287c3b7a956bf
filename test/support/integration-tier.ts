/**
 * The integration tier's setup, run once before any file. Child processes run the CLI as an
 * operator does, `bin/aiops.js` over the compiled `dist/` (it starts in half the CPU time of the
 * TypeScript entry under a loader), and every API serves the pages built into `dist/web/`. So that
 * a test never runs code or pages older than their sources, each build is made again first when a
 * source is newer than it (`npm ci` makes both; an edit makes neither).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { WEB_DIR, WEB_PAGES } from '../../src/api/web.router.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { buildWeb } from '../../web/build.js';
// No connection of the tests reaches a service this machine runs on its default ports.
import './loopback-guard.mjs';

const BUILD_CONFIG = 'tsconfig.build.json';

interface Build {
  name: string;
  /** The files it is made from, relative to the package. */
  sources(): string[];
  /** A file every run of it writes. */
  output: string;
  make(): Promise<void>;
}

function tscPath(): string {
  return createRequire(import.meta.url).resolve('typescript/bin/tsc');
}

const BUILDS: Build[] = [
  {
    name: `dist/ (tsc -p ${BUILD_CONFIG})`,
    sources() {
      const config = JSON.parse(
        execFileSync(process.execPath, [tscPath(), '-p', packagePath(BUILD_CONFIG), '--showConfig'], { encoding: 'utf8' }),
      ) as { files?: string[] };
      return [...(config.files ?? []), BUILD_CONFIG, 'tsconfig.json'];
    },
    output: packagePath('dist/src/cli/run.js'),
    async make() {
      execFileSync(process.execPath, [tscPath(), '-p', packagePath(BUILD_CONFIG)], { cwd: packagePath('.'), stdio: 'inherit' });
    },
  },
  {
    name: 'the web pages (web/build.ts)',
    sources: () => readdirSync(packagePath('web'), { recursive: true, encoding: 'utf8' }).map((file) => path.join('web', file)),
    output: path.join(WEB_DIR, Object.values(WEB_PAGES)[0]!),
    async make() {
      await buildWeb();
    },
  },
];

function modified(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

export async function mochaGlobalSetup(): Promise<void> {
  for (const build of BUILDS) {
    const newestSource = Math.max(...build.sources().map((file) => modified(packagePath(file))));
    if (modified(build.output) >= newestSource) continue;
    process.stdout.write(`integration tier: ${build.name} is older than its sources; building it\n`);
    await build.make();
  }
}
