import { PermissionDeniedError, UnavailableError } from '../kernel/errors.js';
import type { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { GitCredential, GitSyncRequest } from './git.port.js';
import { needsOutboundCheck } from './repository-admission.js';
import { cloneUrl, credentialKind, parseRemote } from './repository-remote.js';
import type { Repository } from './repository.js';

/** Port: a secret's value by its name, read when needed (the records' secrets, in a worker). */
export interface SecretValues {
  resolve(name: string): Promise<string>;
}

/** How index runs reach remotes. */
export interface RemoteAccess {
  /** GIT_BASE_URL: a repository without a URL of its own is `<base>/<owner>/<name>.git`. */
  baseUrl: string;
  /** GIT_TOKEN: sent to GIT_BASE_URL only, never to a repository's own URL. */
  baseToken?: string;
  /** Absent where there are no records to read secrets from (a process without Redis). */
  secrets?: SecretValues;
  /** Checks again, before each clone, the address of a repository no superuser vouched for. */
  outbound: OutboundPolicy;
}

/** Where one run fetches a repository from and with what: the git request but for its branch and folder. */
export async function remoteRequest(
  repo: Pick<Repository, 'name' | 'url' | 'secret' | 'trusted'>,
  access: RemoteAccess,
): Promise<Pick<GitSyncRequest, 'url' | 'credential' | 'noRedirects'>> {
  const url = cloneUrl(repo, access.baseUrl);
  if (repo.url && needsOutboundCheck(repo)) {
    const { host } = parseRemote(repo.url, 'url');
    if (host && (await access.outbound.refusesHost(host))) {
      throw new PermissionDeniedError(
        `${repo.name}: ${host} is now an internal address (loopback, private, link-local or metadata range): only a superuser may add such a repository, or OUTBOUND_ALLOW must list it`,
      );
    }
  }
  // GIT_BASE_URL is the operator's: its redirects (a renamed repository) are followed as they always were.
  return { url, credential: await credential(repo, url, access), noRedirects: repo.url !== undefined && repo.trusted !== true };
}

async function credential(
  repo: Pick<Repository, 'name' | 'url' | 'secret'>,
  url: string,
  access: RemoteAccess,
): Promise<GitCredential | undefined> {
  const kind = credentialKind(url);
  if (!repo.secret) return !repo.url && kind === 'token' && access.baseToken ? { kind, token: access.baseToken } : undefined;
  if (!access.secrets) {
    throw new UnavailableError(`${repo.name}: its secret '${repo.secret}' cannot be read by this process, which has no records`, {
      remedy: 'Index it where the service runs (aiops start, or aiops worker with REDIS_URL), whose workers read secrets.',
    });
  }
  const value = await access.secrets.resolve(repo.secret);
  if (kind === 'ssh-key') return { kind, key: value };
  if (kind === 'token') return { kind, token: value };
  return undefined;
}
