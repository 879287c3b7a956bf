import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { packagePath } from '../../src/kernel/package-root.js';

const run = promisify(execFile);

/**
 * The Node.js the conformance suite runs on: it needs Node 22 or newer, and the service runs on 20.
 * The npm registry's Node package for this platform, pinned, installed once into a git-ignored
 * folder of the project for the suite alone: nothing else sees it (no `node` on any PATH).
 */
export const CONFORMANCE_NODE_VERSION = '24.22.3';

export async function conformanceNode(): Promise<string> {
  const name = `node-${process.platform}-${process.arch}`;
  const folder = packagePath(path.join('.cache', 'conformance-node', CONFORMANCE_NODE_VERSION));
  const binary = path.join(folder, 'node_modules', name, 'bin', 'node');
  if (!existsSync(binary)) {
    await run(
      'npm',
      ['install', '--prefix', folder, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${name}@${CONFORMANCE_NODE_VERSION}`],
      {
        timeout: 600_000,
      },
    );
  }
  return binary;
}
