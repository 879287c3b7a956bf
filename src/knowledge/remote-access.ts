import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import { PermissionDeniedError, UnavailableError, UpstreamError } from '../kernel/errors.js';
import { OutboundRefusedError, type OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { GitCredential, GitSyncRequest } from './git.port.js';
import { localFolderWithinRoots } from './repository-admission.js';
import { cloneUrl, credentialKind, localUrl, parseRemote, type RepositoryRemote } from './repository-remote.js';
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
  /** KB_LOCAL_ROOTS: a local repository's folder is resolved and checked against them before each clone or fetch. */
  localRoots: readonly string[];
}

/** The addresses a name resolves to, once every one is allowed: the outbound policy's own lookup refuses the others. */
function allowedAddresses(outbound: OutboundPolicy, host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    outbound.lookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses as LookupAddress[]))),
  );
}

/**
 * Checks the destination of a repository no superuser vouched for, as git will reach it. Over
 * http(s) a name is resolved and checked here, and git is held to those addresses (curl's resolve
 * entry), so that it cannot resolve elsewhere meanwhile; ssh resolves by itself, its host checked
 * just before.
 */
async function checkedDestination(
  repo: Pick<Repository, 'name'>,
  remote: RepositoryRemote,
  outbound: OutboundPolicy,
): Promise<Pick<GitSyncRequest, 'resolve'>> {
  const host = remote.host!;
  const refused = () =>
    new PermissionDeniedError(
      `${repo.name}: ${host} is now an internal address (loopback, private, link-local or metadata range): only a superuser may add such a repository, or OUTBOUND_ALLOW must list it`,
    );
  if ((remote.kind === 'https' || remote.kind === 'http') && net.isIP(host) === 0) {
    const addresses = await allowedAddresses(outbound, host).catch((error: unknown) => {
      throw error instanceof OutboundRefusedError ? refused() : new UpstreamError(`${repo.name}: ${host} does not resolve`);
    });
    const port = new URL(remote.url).port || (remote.kind === 'https' ? '443' : '80');
    const pinned = addresses.map(({ address, family }) => (family === 6 ? `[${address}]` : address)).join(',');
    return { resolve: `${host}:${port}:${pinned}` };
  }
  if (await outbound.refusesHost(host)) throw refused();
  return {};
}

/** Where one run fetches a repository from and with what: the git request but for its branch and folder. */
export async function remoteRequest(
  repo: Pick<Repository, 'name' | 'url' | 'secret' | 'trusted'>,
  access: RemoteAccess,
): Promise<Pick<GitSyncRequest, 'url' | 'credential' | 'noRedirects' | 'resolve'>> {
  let url = cloneUrl(repo, access.baseUrl);
  let destination: Pick<GitSyncRequest, 'resolve'> = {};
  if (repo.url) {
    // Read again as git will read it: an entry stored in a form no longer taken (`https::http://…`) goes no further.
    const remote = parseRemote(repo.url, 'url');
    if (remote.kind === 'local') url = localUrl(await localFolderWithinRoots(remote.folder!, access.localRoots, 'url'));
    else if (repo.trusted !== true && remote.host) destination = await checkedDestination(repo, remote, access.outbound);
  }
  // GIT_BASE_URL is the operator's: its redirects (a renamed repository) are followed as they always were.
  return {
    url,
    credential: await credential(repo, url, access),
    noRedirects: repo.url !== undefined && repo.trusted !== true,
    ...destination,
  };
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

/**
 * Whether git's own words about a failed fetch may be shown (run state, job, status, which every
 * holder of view_kb reads): yes for GIT_BASE_URL, a local folder, or a host a superuser vouched
 * for that is public. Not for a repository no superuser vouched for (a name may resolve elsewhere
 * for git than for the check) nor at an internal address: there they would tell whether a port and
 * a path answer. Those words then go to the worker's log only.
 */
export async function gitWordsShown(repo: Pick<Repository, 'url' | 'trusted'>, access: Pick<RemoteAccess, 'outbound'>): Promise<boolean> {
  if (!repo.url) return true;
  const remote = parseRemote(repo.url, 'url');
  if (remote.kind === 'local') return true;
  return repo.trusted === true && remote.host !== undefined && !(await access.outbound.refusesHost(remote.host));
}

/** What a fetch git failed says where git's words are not shown. */
export const gitFailureWithoutWords = (repo: Pick<Repository, 'name'>) =>
  new UpstreamError(`git could not fetch ${repo.name} from its URL (the index worker's log has git's own words)`);
