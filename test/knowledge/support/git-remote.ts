import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestRemote {
  /** GIT_BASE_URL for the remotes under this root (`file://...`). */
  baseUrl: string;
  /** The bare repositories' folder. */
  bareDir: string;
  /** Writes (string), deletes (null) or links ({ symlink }) files, commits and pushes. */
  commit(changes: Record<string, string | null | { symlink: string }>, branch?: string): string;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=test@example.com', '-c', 'user.name=test', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/** A bare repository `owner/name` under `root/remotes`, pushed to from a working copy. */
export function createRemote(root: string, name: string, files: Record<string, string | { symlink: string }>): TestRemote {
  const bareDir = path.join(root, 'remotes', `${name}.git`);
  const work = path.join(root, 'work', name);
  mkdirSync(bareDir, { recursive: true });
  mkdirSync(work, { recursive: true });
  git(bareDir, 'init', '-q', '--bare');
  git(work, 'init', '-q');
  git(work, 'remote', 'add', 'origin', bareDir);
  const remote: TestRemote = {
    baseUrl: `file://${path.join(root, 'remotes')}`,
    bareDir,
    commit(changes, branch = 'main') {
      for (const [file, content] of Object.entries(changes)) {
        const full = path.join(work, file);
        rmSync(full, { force: true });
        if (content === null) continue;
        mkdirSync(path.dirname(full), { recursive: true });
        if (typeof content === 'string') writeFileSync(full, content);
        else symlinkSync(content.symlink, full);
      }
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '--allow-empty', '-m', 'change');
      git(work, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
      return git(work, 'rev-parse', 'HEAD');
    },
  };
  remote.commit(files);
  return remote;
}
