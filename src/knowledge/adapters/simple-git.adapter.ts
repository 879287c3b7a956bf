import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { UpstreamError, ValidationError } from '../../kernel/errors.js';
import { DEFAULT_BRANCH, type GitSource, type GitSyncRequest, type GitSyncResult } from '../git.port.js';
import { gitTransport, type GitTransport } from '../repository-remote.js';
import { redactSecrets } from '../../kernel/security/redact-secrets.js';

/** Marks a clone in progress beside its target: `<dir>.clone-<random>`. */
const CLONE_SUFFIX = '.clone-';

export interface SimpleGitSourceOptions {
  /** A call that prints nothing for this long is killed. */
  timeoutMs: number;
}

/** What git said went wrong: its `fatal:` and `error:` lines (the cause), else its last lines. */
function gitReason(message: string): string {
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const causes = lines.filter((line) => /^(fatal|error):/i.test(line));
  return (causes.length > 0 ? causes : lines.slice(-3)).join(' ');
}

/** A word for the shell that runs GIT_SSH_COMMAND. */
const shellWord = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** `user:token` as the secret holds it, else the token alone under the user name GitHub, GitLab and Gitea all take. */
function basicAuthorization(token: string): string {
  const login = /^[^:\s]+:\S+$/.test(token) ? token : `x-access-token:${token}`;
  return `Authorization: Basic ${Buffer.from(login).toString('base64')}`;
}

/** One sync's git environment and what must never show in its messages; `close` removes its key file. */
interface GitCall {
  env: Record<string, string>;
  secrets: string[];
  close(): Promise<void>;
}

/**
 * Git through simple-git. A credential travels in the environment of each git process of one
 * sync: a token as `http.extraHeader` (GIT_CONFIG_COUNT/KEY/VALUE), so it is in no argument list,
 * no URL and no `.git/config`, with redirects refused, so it reaches that remote only; an SSH key
 * in a file of a private temporary folder (mode 0600) for that sync only. Prompts are off
 * (GIT_TERMINAL_PROMPT=0, no askpass, ssh in batch mode, a new host's key accepted and remembered,
 * a changed one refused) and stdin is not inherited.
 */
export class SimpleGitSource implements GitSource {
  constructor(private readonly options: SimpleGitSourceOptions) {}

  private async call({ credential, noRedirects, resolve }: GitSyncRequest, transport: GitTransport): Promise<GitCall> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: 'true',
      SSH_ASKPASS: 'true',
      GCM_INTERACTIVE: 'never',
      GIT_CONFIG_NOSYSTEM: '1',
      // The URL's own transport only: never `ext::` (a command), a helper, or a redirect to another scheme (https to http).
      GIT_ALLOW_PROTOCOL: transport,
    };
    const config: Array<[string, string]> = [];
    const secrets: string[] = [];
    const ssh = ['ssh', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=accept-new'];
    let keyDir: string | undefined;
    if (credential?.kind === 'token') {
      const header = basicAuthorization(credential.token);
      config.push(['http.extraHeader', header]);
      secrets.push(credential.token, header, header.slice('Authorization: Basic '.length));
    } else if (credential?.kind === 'ssh-key') {
      keyDir = await mkdtemp(path.join(tmpdir(), 'aiops-git-key-'));
      const keyFile = path.join(keyDir, 'key');
      // OpenSSH reads a key only up to a final newline, which a secret's value has lost.
      await writeFile(keyFile, `${credential.key.trim()}\n`, { mode: 0o600 });
      ssh.push('-i', keyFile, '-o', 'IdentitiesOnly=yes');
      secrets.push(credential.key);
    }
    env.GIT_SSH_COMMAND = ssh.map(shellWord).join(' ');
    // A redirect would carry the header, or an unchecked address, to whatever host it names.
    if (credential || noRedirects) config.push(['http.followRedirects', 'false']);
    // curl connects to the addresses the name was checked at, not to what it resolves to by then.
    if (resolve) config.push(['http.curloptResolve', resolve]);
    config.forEach(([key, value], index) => Object.assign(env, { [`GIT_CONFIG_KEY_${index}`]: key, [`GIT_CONFIG_VALUE_${index}`]: value }));
    if (config.length > 0) env.GIT_CONFIG_COUNT = String(config.length);
    return {
      env,
      secrets,
      close: async () => {
        if (keyDir) await rm(keyDir, { recursive: true, force: true });
      },
    };
  }

  private git(baseDir: string, call: GitCall, signal?: AbortSignal): SimpleGit {
    return simpleGit({ baseDir, timeout: { block: this.options.timeoutMs }, ...(signal ? { abort: signal } : {}) }).env(call.env);
  }

  async sync(request: GitSyncRequest): Promise<GitSyncResult> {
    const { url, branch, signal } = request;
    // git runs in the clone's parent folder: a relative target would be read from there, not from here.
    const dir = path.resolve(request.dir);
    // Checked here too, whatever the caller checked: `https::http://host/` would have git fetch http://host/ through a helper.
    const transport = gitTransport(url);
    if (!transport) throw ValidationError.field('url', `git is given only https, http, ssh and local remotes, not ${url}`);
    const call = await this.call(request, transport);
    try {
      const present = await stat(path.join(dir, '.git')).then(
        () => true,
        () => false,
      );
      if (present) {
        try {
          return await this.update(url, branch, dir, call, signal);
        } catch (error) {
          if (signal?.aborted) throw error;
          // A broken or foreign clone: start again from scratch.
          await rm(dir, { recursive: true, force: true });
        }
      }
      return await this.clone(url, branch, dir, call, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const which = branch === DEFAULT_BRANCH ? 'the default branch' : `branch ${branch}`;
      throw new UpstreamError(`git could not fetch ${which} of ${url}: ${gitReason(redactSecrets(message, call.secrets))}`);
    } finally {
      await call.close();
    }
  }

  private async update(url: string, branch: string, dir: string, call: GitCall, signal?: AbortSignal): Promise<GitSyncResult> {
    const git = this.git(dir, call, signal);
    // The URL is given on each fetch, so a changed GIT_BASE_URL needs no config rewrite.
    await git.raw(['fetch', '--depth', '1', '--no-tags', '--', url, branch === DEFAULT_BRANCH ? 'HEAD' : `refs/heads/${branch}`]);
    await git.raw(['reset', '--hard', 'FETCH_HEAD']);
    await git.raw(['clean', '-ffdxq']);
    return this.head(git);
  }

  /**
   * Clones beside the target and renames it into place, so a failed clone leaves nothing half-made.
   * A process killed mid-clone cannot clean up: its leftovers (`<dir>.clone-*`) go before the next
   * clone (one index job per repository runs at a time, so none of them is still in use).
   */
  private async clone(url: string, branch: string, dir: string, call: GitCall, signal?: AbortSignal): Promise<GitSyncResult> {
    const parent = path.dirname(dir);
    await mkdir(parent, { recursive: true });
    const prefix = `${path.basename(dir)}${CLONE_SUFFIX}`;
    for (const entry of await readdir(parent)) {
      if (entry.startsWith(prefix)) await rm(path.join(parent, entry), { recursive: true, force: true });
    }
    const temp = `${dir}${CLONE_SUFFIX}${randomUUID().slice(0, 8)}`;
    try {
      await this.git(path.dirname(dir), call, signal).raw([
        'clone',
        '--depth',
        '1',
        '--single-branch',
        '--no-tags',
        ...(branch === DEFAULT_BRANCH ? [] : ['--branch', branch]),
        '--',
        url,
        temp,
      ]);
      await rm(dir, { recursive: true, force: true });
      await rename(temp, dir);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
    return this.head(this.git(dir, call, signal));
  }

  private async head(git: SimpleGit): Promise<GitSyncResult> {
    const [commit, committedAt] = (await git.raw(['log', '-1', '--format=%H%n%cI'])).trim().split('\n') as [string, string];
    return { commit, committedAt };
  }
}
