/** The branch name that stands for the remote's default branch (git never allows a branch of that name). */
export const DEFAULT_BRANCH = 'HEAD';

/** What authenticates to one remote: a token over http(s), an SSH private key over ssh. */
export type GitCredential = { kind: 'token'; token: string } | { kind: 'ssh-key'; key: string };

/** What the pipeline needs from Git: one call that leaves `dir` at the tip of `branch`. */
export interface GitSyncRequest {
  /** The remote, without credentials (`https://github.com/owner/name.git`, `git@host:group/name.git`, `file:///...`). */
  url: string;
  /** A branch, or DEFAULT_BRANCH for the remote's default one. */
  branch: string;
  /** Where the working tree lives. */
  dir: string;
  /** Sent to this remote only, for this call only. */
  credential?: GitCredential;
  /** Refuse HTTP redirects (an address nobody vouched for must not lead elsewhere); always so with a credential. */
  noRedirects?: boolean;
  /** `host:port:address[,address]`: the addresses an http(s) remote's name was checked at, the only ones git may connect to. */
  resolve?: string;
  signal?: AbortSignal;
}

export interface GitSyncResult {
  commit: string;
  /** ISO 8601 committer date of the commit. */
  committedAt: string;
}

export interface GitSource {
  /** Shallow single-branch clone, or fetch and hard reset when `dir` already holds a clone. Resolves to the commit and its date. */
  sync(request: GitSyncRequest): Promise<GitSyncResult>;
}
