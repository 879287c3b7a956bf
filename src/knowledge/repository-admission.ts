import { realpath, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PermissionDeniedError, ValidationError } from '../kernel/errors.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import { DEFAULT_BRANCH } from './git.port.js';
import type { NewRepository } from './repository-list.js';
import { defaultName, localUrl, parseRemote } from './repository-remote.js';
import { isRepositoryName } from './repository.js';

/** A repository as a user asks for it: where it comes from, and how the knowledge base lists it. */
export interface RepositoryRequest {
  /** owner/name, a Git URL or a local folder (see ACCEPTED_FORMS). */
  repo: string;
  /** The owner/name it is listed under; by default owner/name itself, or the last two path segments of a URL. */
  name?: string;
  description?: string;
  /** Default: main for owner/name, the remote's default branch for a URL. */
  branch?: string;
  priority?: number;
  file_patterns?: string[];
  /** The secret holding its credential: a token for https, an SSH private key for ssh. */
  secret?: string;
}

/** Who adds a repository, as far as the rules care (the CLI and a tool server on stdio act as the operator: a superuser). */
export interface RepositoryWriter {
  superuser: boolean;
}

export const OPERATOR_WRITER: RepositoryWriter = { superuser: true };

/** What the operator allows: internal destinations (OUTBOUND_ALLOW) and the folders local repositories may come from (KB_LOCAL_ROOTS). */
export interface RepositoryRules {
  outbound: OutboundPolicy;
  /** Absolute folders; none: no local repository. */
  localRoots: readonly string[];
}

/** The request's field names, as each edge calls them (`url` and `name` in the API, `repo` and `name` for the tool). */
export interface RequestFields {
  repo: string;
  name: string;
}

const SECRET_NAME = /^[^\s\p{Cc}]{1,100}$/u;

/** This machine: what is sent there never crosses a network. */
const isLoopback = (host: string) => host === 'localhost' || (net.isIP(host) !== 0 && OutboundPolicy.internalRange(host) === 'loopback');

/** `folder` itself or a folder inside it. */
const within = (folder: string, root: string) => folder === root || folder.startsWith(`${root}${path.sep}`);

/** The real path where it exists on this machine (symbolic links resolved), the path as given otherwise. */
const real = (folder: string) => realpath(folder).catch(() => folder);

/**
 * The folder git is to read, as it is now (every symbolic link followed), once it lies under a
 * folder of KB_LOCAL_ROOTS: checked when a repository is added and again before each clone or
 * fetch, so that a folder later replaced by a link leads nowhere outside them. A folder that does
 * not exist is refused (it could become a link to anywhere).
 */
export async function localFolderWithinRoots(folder: string, localRoots: readonly string[], field: string): Promise<string> {
  if (localRoots.length === 0) {
    throw new PermissionDeniedError(
      `${field}: local folders are not indexed here: the operator lists the folders they may come from in KB_LOCAL_ROOTS (none is listed; each process reads it when it starts, so a running service is restarted after it is set).`,
    );
  }
  const roots = await Promise.all(localRoots.map(real));
  const resolved = await realpath(folder).catch(() => undefined);
  // Said the same way whether a folder outside exists or not, and without where a link leads: no map of the machine.
  if (!roots.some((root) => within(resolved ?? folder, root))) {
    throw new PermissionDeniedError(`${field}: ${folder} is not under a folder of KB_LOCAL_ROOTS (${localRoots.join(', ')}).`);
  }
  const isFolder =
    resolved !== undefined &&
    (await stat(resolved).then(
      (entry) => entry.isDirectory(),
      () => false,
    ));
  if (!isFolder) throw ValidationError.field(field, `${folder} is not a folder on this machine.`);
  return resolved;
}

/**
 * Checks a request against the rules and turns it into the list's entry. A local folder must lie
 * under KB_LOCAL_ROOTS (for everyone: nobody indexes /etc through the API). Naming a secret, and a
 * host in a loopback, private, link-local or metadata range that OUTBOUND_ALLOW does not list, are
 * superuser business, as they are for LLM models and MCP servers: an entry a superuser adds is
 * marked trusted, so the worker that clones it does not check its address again.
 */
export async function admitRepository(
  request: RepositoryRequest,
  writer: RepositoryWriter,
  rules: RepositoryRules,
  fields: RequestFields = { repo: 'repo', name: 'name' },
): Promise<NewRepository> {
  const remote = parseRemote(request.repo, fields.repo);
  const secret = request.secret?.trim() || undefined;
  if (secret !== undefined) {
    if (!SECRET_NAME.test(secret)) throw ValidationError.field('secret', 'A secret name is 1 to 100 characters without spaces.');
    if (!writer.superuser) throw new PermissionDeniedError('secret: only a superuser may name a secret on a knowledge-base repository.');
    if (remote.kind === 'local') throw ValidationError.field('secret', 'A local folder is read without a credential: leave secret out.');
    if (remote.kind === 'http' && !isLoopback(remote.host!)) {
      throw ValidationError.field(
        'secret',
        'A credential is sent over https or ssh only, never in clear over http:// (but to this machine).',
      );
    }
  }
  let url: string | undefined = remote.kind === 'base' ? undefined : remote.url;
  if (remote.kind === 'local') {
    url = localUrl(await localFolderWithinRoots(remote.folder!, rules.localRoots, fields.repo));
  } else if (remote.host && !writer.superuser && (await rules.outbound.refusesHost(remote.host))) {
    throw new PermissionDeniedError(
      `${fields.repo}: only a superuser may add a repository at an internal address (loopback, private, link-local or metadata range); OUTBOUND_ALLOW lists exceptions.`,
    );
  }
  const given = request.name?.trim().replace(/\/+$/, '');
  if (given !== undefined && given !== '' && !isRepositoryName(given)) {
    throw ValidationError.field(fields.name, `'${given}' is not a name of the form owner/name (letters, digits, '.', '-', '_').`);
  }
  const name = given || defaultName(remote);
  if (!name) {
    throw ValidationError.field(
      fields.name,
      `No owner/name can be made of '${request.repo}': give the name to list it under (owner/name).`,
    );
  }
  return {
    name,
    description: request.description,
    branch: request.branch?.trim() || (remote.kind === 'base' ? undefined : DEFAULT_BRANCH),
    priority: request.priority,
    file_patterns: request.file_patterns,
    ...(url ? { url } : {}),
    ...(secret ? { secret } : {}),
    trusted: writer.superuser,
  };
}
