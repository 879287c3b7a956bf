import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationError } from '../kernel/errors.js';
import { isRepositoryName } from './repository.js';

/** What `aiops kb add`, the API and the tool take, in the words every refusal uses. */
export const ACCEPTED_FORMS =
  'owner/name (a repository on GIT_BASE_URL), a Git URL (https://host/group/name.git, ssh://[user@]host[:port]/group/name.git ' +
  'or user@host:group/name.git), or a local folder under KB_LOCAL_ROOTS (/path/to/repo or file:///path/to/repo)';

/**
 * Where a repository is cloned from: `base` is `<GIT_BASE_URL>/<owner>/<name>.git`; the others are
 * a URL a user gave (ssh covers `ssh://` and git's `user@host:path`); `local` a folder of a machine.
 */
export type RemoteKind = 'base' | 'https' | 'http' | 'ssh' | 'local';

export interface RepositoryRemote {
  kind: RemoteKind;
  /** What git is given: never with credentials (a file:// URL for a local folder, so that clones stay shallow). */
  url: string;
  /** The host it names (none for a local folder). */
  host?: string;
  /** A local folder's absolute path. */
  folder?: string;
  /** The path on the host (or the folder), for a default name. */
  path: string;
}

/** Host names and addresses git may be given: never one that reads as an option (`-oProxyCommand=...`). */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;
const USER = /^[A-Za-z0-9._~][A-Za-z0-9._~-]*$/;
/** git's scp-like form: `[user@]host:path`, a colon before any slash. */
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:[\]]+|\[[^\]]+\]):(?!\/\/)(.+)$/;

function refuse(field: string, value: string, why: string): ValidationError {
  return ValidationError.field(field, `'${value}' ${why}. Accepted: ${ACCEPTED_FORMS}.`);
}

const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/** A folder as git takes it: `file://` and the path as it is (git does not decode a file URL), so no character that a URL would escape. */
function localRemote(folder: string, field: string): RepositoryRemote {
  const normal = path.resolve(folder);
  if (/[\s\p{Cc}%#?]/u.test(normal))
    throw refuse(field, folder, 'is a folder whose path has a space, %, # or ?, which a file:// URL cannot carry');
  return { kind: 'local', url: localUrl(normal), folder: normal, path: normal };
}

/** The file:// URL git clones a folder from. */
export const localUrl = (folder: string) => `file://${folder}`;

/** An http(s) or ssh:// URL; credentials belong in a secret, never in the URL (git would write them to .git/config). */
function urlRemote(text: string, field: string): RepositoryRemote {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(field, text, 'is not a URL');
  }
  const kind = url.protocol.slice(0, -1) as 'https' | 'http' | 'ssh';
  if (url.password || (kind !== 'ssh' && url.username)) {
    throw refuse(field, text, 'carries credentials: name a secret holding the token or SSH key instead');
  }
  if (url.username && !USER.test(decodeURIComponent(url.username))) throw refuse(field, text, 'has a user name git cannot take');
  if (!HOST.test(url.hostname)) throw refuse(field, text, 'has no host name git can take');
  if (url.search || url.hash) throw refuse(field, text, 'has a query or fragment, which a Git URL has not');
  if (url.pathname.replace(/\/+$/, '') === '') throw refuse(field, text, 'names no repository on its host');
  return { kind, url: url.href, host: bare(url.hostname), path: decodeURIComponent(url.pathname) };
}

/** git's `<transport>::<address>` (transport.c): scheme characters, then `::`; git runs `git-remote-<transport>` on the address. */
const TRANSPORT_ADDRESS = /^[A-Za-z][A-Za-z0-9+.-]*::/;
/** `scheme://`, as git reads it (a URL, not a path). */
const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/** The schemes git reaches over ssh. */
const SSH_SCHEMES = new Set(['ssh', 'git+ssh', 'ssh+git']);

/** The transports git may use for a repository: what the knowledge base clones from, and nothing else. */
export type GitTransport = 'https' | 'http' | 'ssh' | 'file';

/**
 * The transport git would use for `url`, read in git's own order (transport.c, connect.c):
 * `<transport>::<address>` first (a remote helper: undefined, never allowed), then `scheme://`,
 * then a local path (no colon, or a slash before the first one), then scp-like `[user@]host:path`
 * (ssh). Undefined for a transport the knowledge base does not clone over (`git://`, `ftp://`,
 * any other helper).
 */
export function gitTransport(url: string): GitTransport | undefined {
  if (TRANSPORT_ADDRESS.test(url)) return undefined;
  const scheme = URL_SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (SSH_SCHEMES.has(scheme)) return 'ssh';
    return scheme === 'https' || scheme === 'http' || scheme === 'file' ? scheme : undefined;
  }
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon < 0 || (slash >= 0 && slash < colon)) return 'file';
  return 'ssh';
}

/**
 * Reads where a repository comes from, as a user wrote it (the CLI has made a relative folder
 * absolute), in git's own order (see gitTransport): what git would hand to a remote helper is
 * refused, and the host is the one git connects to. Throws a ValidationError on `field` that lists
 * the accepted forms.
 */
export function parseRemote(value: string, field: string): RepositoryRemote {
  const text = value.trim();
  // git would give the address to `git-remote-<transport>`: `https::http://10.0.0.1/` fetches http://10.0.0.1/.
  if (TRANSPORT_ADDRESS.test(text)) {
    throw refuse(
      field,
      value,
      "is git's <transport>::<address> form (a remote helper), which the knowledge base does not take: give the URL itself",
    );
  }
  // Whitespace, control characters and backslashes are in no form (URL parsers disagree on a backslash), and git would read a leading '-' as an option.
  if (text === '' || text.length > 2_000 || /[\s\p{Cc}\\]/u.test(text) || text.startsWith('-')) {
    throw refuse(field, value, 'is not a repository');
  }
  const scheme = URL_SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'https' || scheme === 'http') return urlRemote(text, field);
  // git reaches git+ssh:// and ssh+git:// over ssh too: one spelling is kept.
  if (scheme !== undefined && SSH_SCHEMES.has(scheme)) return urlRemote(`ssh${text.slice(scheme.length)}`, field);
  if (scheme === 'file') {
    try {
      return localRemote(fileURLToPath(text), field);
    } catch {
      throw refuse(field, text, 'is not a file:// URL of a local folder');
    }
  }
  if (scheme) throw refuse(field, text, `uses ${scheme}://, which the knowledge base does not clone from`);
  if (text.startsWith('/')) return localRemote(text, field);
  const name = text.replace(/\/+$/, '');
  if (isRepositoryName(name)) return { kind: 'base', url: '', path: name };
  const scp = SCP_LIKE.exec(text);
  if (scp) {
    const [, user, host = '', repoPath = ''] = scp;
    if ((user !== undefined && !USER.test(user)) || !HOST.test(host) || repoPath.startsWith('-')) {
      throw refuse(field, text, 'is not a user@host:path git can take');
    }
    return { kind: 'ssh', url: text, host: bare(host), path: repoPath };
  }
  throw refuse(field, text, 'is not a repository');
}

/**
 * The name a remote is listed under when none is given: its last two path segments (`sub/name`
 * of `https://host/group/sub/name.git`), or the host (`local` for a folder) and the last one.
 * Undefined when that is no valid owner/name.
 */
export function defaultName(remote: RepositoryRemote): string | undefined {
  if (remote.kind === 'base') return remote.path;
  const segments = remote.path
    .replace(/\.git\/*$/, '')
    .split('/')
    .filter(Boolean);
  const last = segments.at(-1);
  if (!last) return undefined;
  const owner = segments.length >= 2 ? segments.at(-2)! : remote.kind === 'local' ? 'local' : remote.host!;
  const name = `${owner}/${last}`;
  return isRepositoryName(name) ? name : undefined;
}

/** The kind of credential a remote takes: a token over https (and http), an SSH key over ssh, none from a folder. */
export function credentialKind(url: string): 'token' | 'ssh-key' | undefined {
  const transport = gitTransport(url);
  return transport === 'https' || transport === 'http' ? 'token' : transport === 'ssh' ? 'ssh-key' : undefined;
}

/** The URL git clones a repository from: its own, or `<base>/<owner>/<name>.git`. */
export function cloneUrl(repo: { name: string; url?: string }, base: string): string {
  return repo.url ?? `${base.replace(/\/+$/, '')}/${repo.name}.git`;
}
