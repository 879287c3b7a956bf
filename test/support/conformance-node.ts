import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { packagePath } from '../../src/kernel/package-root.js';

const run = promisify(execFile);

/** The oldest Node.js the MCP conformance suite runs on. */
const CONFORMANCE_NODE_MAJOR = 22;

/**
 * The Node.js the conformance suite runs on: this one when it is new enough (CI runs on Node 24),
 * otherwise the npm registry's Node 24 that `.ci/node24` installs once into the project's
 * git-ignored `.cache/` (the same one CI puts first on PATH on an older machine).
 */
export async function conformanceNode(): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) >= CONFORMANCE_NODE_MAJOR) return process.execPath;
  const { stdout } = await run(packagePath('.ci/node24'), { timeout: 600_000 });
  return stdout.trim();
}
