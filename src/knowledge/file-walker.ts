import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Folders never indexed: version control, dependencies, vendored code, build output, caches. */
const SKIPPED_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'vendor',
  'vendored',
  'third_party',
  'third-party',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  'site-packages',
  'dist',
  'build',
]);
/** Generated files that match an indexed suffix but carry no knowledge. */
const SKIPPED_FILES = new Set(['package-lock.json', 'yarn.lock', 'poetry.lock', 'pnpm-lock.yaml', 'Pipfile.lock', 'composer.lock']);
const BINARY_PROBE_BYTES = 8_192;

export interface RepositoryFile {
  /** Repository-relative, `/`-separated. */
  path: string;
  text: string;
  /** sha256 of the bytes. */
  hash: string;
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}

/** `.py` matches by suffix; anything else is a glob on the file name (`*.md`, `Dockerfile`). */
export function fileMatcher(patterns: string[]): (name: string) => boolean {
  const suffixes = patterns.filter((p) => p.startsWith('.') && !/[*?]/.test(p)).map((p) => p.toLowerCase());
  const globs = patterns.filter((p) => !suffixes.includes(p.toLowerCase())).map(globToRegExp);
  return (name) => {
    const lower = name.toLowerCase();
    return suffixes.some((suffix) => lower.endsWith(suffix) && lower.length > suffix.length) || globs.some((glob) => glob.test(name));
  };
}

/**
 * Lists the files to index, sorted by path: matching patterns, regular files only (symlinks are
 * never followed, neither to files nor to folders), outside skipped folders. Size and content
 * are checked when a file is read.
 */
export async function listRepositoryFiles(root: string, patterns: string[]): Promise<string[]> {
  const matches = fileMatcher(patterns);
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(child);
      } else if (entry.isFile() && matches(entry.name) && !SKIPPED_FILES.has(entry.name) && !entry.name.endsWith('.min.js')) {
        found.push(child);
      }
    }
  };
  await walk('');
  return found.sort();
}

/**
 * Reads one listed file safely: opened with O_NOFOLLOW (a file swapped for a symlink since the
 * listing is refused), its real path must stay inside the root, it must be a regular file within
 * the size limit and not binary (a NUL byte in its first 8 KiB). Undefined when it is skipped.
 */
export async function readRepositoryFile(root: string, relative: string, maxBytes: number): Promise<RepositoryFile | undefined> {
  const realRoot = await realpath(root);
  const full = path.join(realRoot, relative);
  if (!full.startsWith(realRoot + path.sep)) return undefined;
  let handle;
  try {
    handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const real = await realpath(full);
    if (!real.startsWith(realRoot + path.sep)) return undefined;
    const bytes = await handle.readFile();
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return undefined;
    const text = bytes.toString('utf8');
    if (!text.trim()) return undefined;
    return { path: relative, text, hash: createHash('sha256').update(bytes).digest('hex') };
  } finally {
    await handle.close();
  }
}
