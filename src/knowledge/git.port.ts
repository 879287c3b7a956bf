/** What the pipeline needs from Git: one call that leaves `dir` at the tip of `branch`. */
export interface GitSyncRequest {
  /** The remote, without credentials (`https://github.com/owner/name.git`, `file:///...`). */
  url: string;
  branch: string;
  /** Where the working tree lives. */
  dir: string;
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
