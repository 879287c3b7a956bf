import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { UpstreamError } from '../../kernel/errors.js';
import type { GitSource, GitSyncRequest, GitSyncResult } from '../git.port.js';
import { redactSecrets } from '../../kernel/security/redact-secrets.js';

/** Marks a clone in progress beside its target: `<dir>.clone-<random>`. */
const CLONE_SUFFIX = '.clone-';

export interface SimpleGitSourceOptions {
  /** Sent as an HTTP Authorization header for each call only; never in a URL, a config file or a message. */
  token?: string;
  /** A call that prints nothing for this long is killed. */
  timeoutMs: number;
}

/**
 * Git through simple-git. The token travels in the environment of each git process as
 * `http.extraHeader` (GIT_CONFIG_COUNT/KEY/VALUE), so it is in no argument list, no URL and no
 * `.git/config`, and redirects are not followed, so it reaches the configured base only. Prompts
 * are off (GIT_TERMINAL_PROMPT=0, no askpass) and stdin is not inherited.
 */
/** What git said went wrong: its `fatal:` and `error:` lines (the cause), else its last lines. */
function gitReason(message: string): string {
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const causes = lines.filter((line) => /^(fatal|error):/i.test(line));
  return (causes.length > 0 ? causes : lines.slice(-3)).join(' ');
}

export class SimpleGitSource implements GitSource {
  private readonly header?: string;

  constructor(private readonly options: SimpleGitSourceOptions) {
    if (options.token) this.header = `Authorization: Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}`;
  }

  private git(baseDir: string, signal?: AbortSignal): SimpleGit {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: 'true',
      SSH_ASKPASS: 'true',
      GCM_INTERACTIVE: 'never',
      GIT_CONFIG_NOSYSTEM: '1',
    };
    if (this.header) {
      // A redirect would carry the header to whatever host it names: with a token, none is followed.
      Object.assign(env, {
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'http.extraHeader',
        GIT_CONFIG_VALUE_0: this.header,
        GIT_CONFIG_KEY_1: 'http.followRedirects',
        GIT_CONFIG_VALUE_1: 'false',
      });
    }
    return simpleGit({ baseDir, timeout: { block: this.options.timeoutMs }, ...(signal ? { abort: signal } : {}) }).env(env);
  }

  private secrets(): string[] {
    return [this.options.token ?? '', this.header ?? '', this.header?.slice('Authorization: Basic '.length) ?? ''];
  }

  async sync({ url, branch, dir: given, signal }: GitSyncRequest): Promise<GitSyncResult> {
    // git runs in the clone's parent folder: a relative target would be read from there, not from here.
    const dir = path.resolve(given);
    try {
      const present = await stat(path.join(dir, '.git')).then(
        () => true,
        () => false,
      );
      if (present) {
        try {
          return await this.update(url, branch, dir, signal);
        } catch (error) {
          if (signal?.aborted) throw error;
          // A broken or foreign clone: start again from scratch.
          await rm(dir, { recursive: true, force: true });
        }
      }
      return await this.clone(url, branch, dir, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new UpstreamError(`git could not fetch branch ${branch} of ${url}: ${gitReason(redactSecrets(message, this.secrets()))}`);
    }
  }

  private async update(url: string, branch: string, dir: string, signal?: AbortSignal): Promise<GitSyncResult> {
    const git = this.git(dir, signal);
    // The URL is given on each fetch, so a changed GIT_BASE_URL needs no config rewrite.
    await git.raw(['fetch', '--depth', '1', '--no-tags', '--', url, `refs/heads/${branch}`]);
    await git.raw(['reset', '--hard', 'FETCH_HEAD']);
    await git.raw(['clean', '-ffdxq']);
    return this.head(git);
  }

  /**
   * Clones beside the target and renames it into place, so a failed clone leaves nothing half-made.
   * A process killed mid-clone cannot clean up: its leftovers (`<dir>.clone-*`) go before the next
   * clone (one index job per repository runs at a time, so none of them is still in use).
   */
  private async clone(url: string, branch: string, dir: string, signal?: AbortSignal): Promise<GitSyncResult> {
    const parent = path.dirname(dir);
    await mkdir(parent, { recursive: true });
    const prefix = `${path.basename(dir)}${CLONE_SUFFIX}`;
    for (const entry of await readdir(parent)) {
      if (entry.startsWith(prefix)) await rm(path.join(parent, entry), { recursive: true, force: true });
    }
    const temp = `${dir}${CLONE_SUFFIX}${randomUUID().slice(0, 8)}`;
    try {
      await this.git(path.dirname(dir), signal).raw([
        'clone',
        '--depth',
        '1',
        '--single-branch',
        '--no-tags',
        '--branch',
        branch,
        '--',
        url,
        temp,
      ]);
      await rm(dir, { recursive: true, force: true });
      await rename(temp, dir);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
    return this.head(this.git(dir, signal));
  }

  private async head(git: SimpleGit): Promise<GitSyncResult> {
    const [commit, committedAt] = (await git.raw(['log', '-1', '--format=%H%n%cI'])).trim().split('\n') as [string, string];
    return { commit, committedAt };
  }
}
