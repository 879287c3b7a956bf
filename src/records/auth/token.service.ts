import { hash, randomBytes, randomUUID } from 'node:crypto';
import { AuthenticationError, ConflictError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import type { BaseRecord, RecordCollection } from '../record-collection.port.js';
import type { Permission, Principal } from './permissions.js';
import { PrincipalCache } from './principal-cache.js';
import type { RevocationFeed } from './revocation-feed.port.js';

export interface UserRecord extends BaseRecord {
  name: string;
}

export interface TokenRecord extends BaseRecord {
  /** sha256 of the key, hex. Keys are 160 random bits, so a fast hash is enough: no guessing. */
  key_hash: string;
  /** Last four characters, so people can tell their tokens apart. */
  key_hint: string;
  user_id: string;
  username: string;
  superuser: boolean;
  permissions: Permission[];
  write_enabled: boolean;
  expires: string | null;
  description: string;
  /** The token a delegated one acts for: it is valid only while that one is. */
  parent_id?: string;
  /** The one resource (RFC 8707) the token is for, an OAuth access token's: the tool server's URL. Refused everywhere else. */
  audience?: string;
}

export interface NewToken {
  username: string;
  superuser: boolean;
  permissions: Permission[];
  writeEnabled: boolean;
  expires: Date | null;
  description?: string;
  parentId?: string;
  audience?: string;
}

/** A token as shown to people and clients: everything but the key's hash. */
export interface TokenView {
  id: string;
  display: string;
  user: string;
  superuser: boolean;
  permissions: Permission[];
  write_enabled: boolean;
  expires: string | null;
  description: string;
  key_hint: string;
  created: string;
}

export function tokenView(token: TokenRecord): TokenView {
  return {
    id: token.id,
    display: `${token.username} (…${token.key_hint})`,
    user: token.username,
    superuser: token.superuser,
    permissions: token.permissions,
    write_enabled: token.write_enabled,
    expires: token.expires,
    description: token.description,
    key_hint: token.key_hint,
    created: token.created,
  };
}

/** One-shot `hash`: a request's key is hashed on every request, and a hash object per call costs several times more. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * The id of the token delegated for `workId`: the same for every attempt at that work, so a later
 * attempt finds what an earlier one left. Shaped as a UUID (version 8: its bits are ours) like every token id.
 */
function delegationId(workId: string): string {
  const hex = hash('sha256', `delegated for ${workId}`, 'hex');
  const variant = (0x8 | (parseInt(hex[16]!, 16) & 0x3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A token minted to act for someone; its key is never stored or logged. */
export interface DelegatedToken {
  key: string;
  token: TokenRecord;
  /**
   * Ends the token. `handedOut: false`: its key was never given to anything that could present
   * it, so no process can have it cached and none is told (one Redis message fewer per turn).
   */
  revoke(options?: { handedOut?: boolean }): Promise<void>;
}

const USERNAME = /^[\w.@+-]{1,150}$/;

/**
 * How long an authenticated token is trusted without asking Redis again (processes that
 * authenticate every request). Revocations reach every process at once over pub/sub; this only
 * bounds the effect of a message lost in a reconnect.
 */
export const TOKEN_CACHE_TTL_MS = 10_000;

/** Users and their API tokens. The key is shown once, at creation; only its hash is kept. */
export class TokenService {
  private cache?: PrincipalCache;

  constructor(
    private readonly users: RecordCollection<UserRecord>,
    private readonly tokens: RecordCollection<TokenRecord>,
    private readonly revocations: RevocationFeed,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Keeps authenticated tokens in memory for up to `ttlMs` (for processes that authenticate on
   * every request: the API). The cache is used only while the revocation feed is live, so a
   * revocation from any process takes effect at once. Returns the stop.
   */
  cachePrincipals(ttlMs: number): () => void {
    const cache = new PrincipalCache(ttlMs, () => this.now().getTime());
    return this.revocations.subscribe({
      revoked: (keyHash) => cache.drop(keyHash),
      live: () => {
        cache.clear();
        this.cache = cache;
      },
      lost: () => {
        this.cache = undefined;
      },
    });
  }

  /** Creates the user if needed and a token for them; returns the record and the key. */
  create(request: NewToken): Promise<{ token: TokenRecord; key: string }> {
    return this.mint(request, randomUUID());
  }

  /** `user`: the token's user when it is known to exist (a delegation's, its parent's); otherwise made if needed. */
  private async mint(request: NewToken, id: string, user?: Pick<UserRecord, 'id' | 'name'>): Promise<{ token: TokenRecord; key: string }> {
    if (!USERNAME.test(request.username)) {
      throw ValidationError.field('user', 'Use 1 to 150 letters, digits and @.+-_ characters.');
    }
    if (request.expires && request.expires.getTime() <= this.now().getTime()) {
      throw ValidationError.field('expires', 'The expiry date is in the past.');
    }
    user ??= await this.ensureUser(request.username);
    const key = randomBytes(20).toString('hex');
    const timestamp = this.now().toISOString();
    const token: TokenRecord = {
      id,
      created: timestamp,
      last_updated: timestamp,
      key_hash: hashKey(key),
      key_hint: key.slice(-4),
      user_id: user.id,
      username: user.name,
      superuser: request.superuser,
      permissions: [...new Set(request.permissions)].sort(),
      write_enabled: request.writeEnabled,
      expires: request.expires?.toISOString() ?? null,
      description: request.description ?? '',
      ...(request.parentId ? { parent_id: request.parentId } : {}),
      ...(request.audience ? { audience: request.audience } : {}),
    };
    // Only a delegation's id can be taken: by another attempt at the same work minting at the same moment.
    if ((await this.tokens.insert(token)) !== 'ok') throw new ConflictError(`A token with id '${id}' exists already.`);
    return { token, key };
  }

  async list(): Promise<TokenRecord[]> {
    return (await this.tokens.all()).records.sort((a, b) => a.created.localeCompare(b.created));
  }

  async get(id: string): Promise<TokenRecord> {
    const token = await this.tokens.get(id);
    if (!token) throw new NotFoundError(`No token with id '${id}'.`);
    return token;
  }

  /**
   * Ends a token at once, and the tokens delegated from it (a chat turn's, mid-turn), down to those
   * delegated from an OAuth access token delegated from it (a tool server call's).
   */
  async revoke(id: string): Promise<void> {
    const token = await this.tokens.get(id);
    if (!token || !(await this.tokens.remove(id))) throw new NotFoundError(`No token with id '${id}'.`);
    // Only a person's token and an OAuth access token have delegated ones: a turn's own revoke, at every turn's end, reads no list.
    const all = token.parent_id && !token.audience ? [] : (await this.tokens.all()).records;
    const children = all.filter((child) => child.parent_id === id);
    const delegated = [...children, ...all.filter((child) => children.some(({ id: parent }) => child.parent_id === parent))];
    const ended = [
      token,
      ...(await Promise.all(delegated.map(async (child) => ((await this.tokens.remove(child.id)) ? child : undefined)))),
    ];
    for (const { key_hash } of ended.filter((each) => each !== undefined)) await this.revoked(key_hash);
  }

  /** Tells every process that the key is gone. */
  private async revoked(keyHash: string): Promise<void> {
    // This process's cache forgets it now; the others when the feed brings the revocation (this
    // one hears it too, but only after requests that may already be waiting).
    this.cache?.drop(keyHash);
    await this.revocations.publish(keyHash);
  }

  /**
   * Ends this very token, in one write that removes it only as it was minted (not a token that took
   * its id since: a later attempt at the same work's); true if it was still there. `announce`:
   * tell every process, whose cache may hold it.
   */
  private async end(token: TokenRecord, announce = true): Promise<boolean> {
    if ((await this.tokens.writeBatch([{ kind: 'remove', expected: token }])).outcome !== 'ok') return false;
    if (announce) await this.revoked(token.key_hash);
    return true;
  }

  /**
   * A short-lived token with exactly the rights of token `tokenId` (same user, permissions,
   * superuser and read-only flags; it never outlives its parent), for acting on a person's
   * behalf: the chat agent's calls on this service's API. Its key exists only in memory; call
   * `revoke` when the work ends. One delegation per `workId` (a chat turn's id) at a time: the
   * one an earlier attempt left (its process died before revoking it) ends first, and
   * `endDelegation` ends it from anywhere; the expiry bounds it if nothing does. `firstAttempt`:
   * no attempt at this work began before, so none can have left a key and none is looked for.
   * `audience`: the one resource the token is for (an OAuth access token's). The token acted for
   * may itself be an OAuth access token (a host signed in by OAuth calling the tool server): the
   * delegated one has the person's rights, not that audience, ends with it or the person's token,
   * and no token delegated from anything else is delegated again.
   */
  async delegate(
    tokenId: string,
    {
      ttlMs,
      description,
      workId,
      firstAttempt,
      audience,
    }: { ttlMs: number; description: string; workId: string; firstAttempt?: boolean; audience?: string },
  ): Promise<DelegatedToken> {
    const id = delegationId(workId);
    // Read together: the key an earlier attempt left (none on the work's first attempt), and the token this one acts for.
    const [left, parent] = await Promise.all([firstAttempt ? null : this.tokens.get(id), this.tokens.get(tokenId)]);
    if (left) await this.end(left);
    const now = this.now().getTime();
    const parentExpiry = parent?.expires ? Date.parse(parent.expires) : Number.POSITIVE_INFINITY;
    if (!parent || parentExpiry <= now) throw new AuthenticationError('The token that asked for this work is revoked or expired.');
    if (parent.parent_id) {
      if (!parent.audience) throw new AuthenticationError('A token delegated for some work is not delegated again.');
      // An access token lives no longer than the person's token; that one must still be there.
      if (!(await this.tokens.get(parent.parent_id)))
        throw new AuthenticationError('The token that asked for this work is revoked: the token it acts for is.');
    }
    const { token, key } = await this.mint(
      {
        username: parent.username,
        superuser: parent.superuser,
        permissions: parent.permissions,
        writeEnabled: parent.write_enabled,
        expires: new Date(Math.min(parentExpiry, now + ttlMs)),
        description,
        parentId: parent.id,
        ...(audience ? { audience } : {}),
      },
      id,
      // Users are never removed: the parent's is there.
      { id: parent.user_id, name: parent.username },
    );
    return {
      key,
      token,
      revoke: async ({ handedOut = true } = {}) => {
        await this.end(token, handedOut);
      },
    };
  }

  /** Ends the token delegated for `workId`, if one is left (its attempt's process was killed); true if one was. */
  async endDelegation(workId: string): Promise<boolean> {
    const left = await this.tokens.get(delegationId(workId));
    return left !== null && this.end(left);
  }

  /** Resolves an `Authorization: Token <key>` key to who is calling. */
  async authenticate(key: string): Promise<Principal> {
    const keyHash = hashKey(key);
    const now = this.now().getTime();
    const cached = this.cache?.get(keyHash);
    if (cached) return cached;
    const token = await this.tokens.getByKey(keyHash);
    if (!token) throw new AuthenticationError('Invalid token.');
    const expires = token.expires ? Date.parse(token.expires) : null;
    if (expires !== null && expires <= now) throw new AuthenticationError('Token expired.');
    // Revoking the parent removes its delegated tokens; this also covers one delegated while it was revoked.
    if (token.parent_id && !(await this.tokens.get(token.parent_id)))
      throw new AuthenticationError('Token revoked: the token it acts for is.');
    const principal: Principal = {
      userId: token.user_id,
      username: token.username,
      tokenId: token.id,
      superuser: token.superuser,
      permissions: new Set(token.permissions),
      writeEnabled: token.write_enabled,
      ...(token.parent_id ? { delegated: true as const } : {}),
      ...(token.audience ? { audience: token.audience } : {}),
    };
    this.cache?.set(keyHash, principal, expires);
    return principal;
  }

  private async ensureUser(name: string): Promise<UserRecord> {
    const timestamp = this.now().toISOString();
    const fresh: UserRecord = { id: randomUUID(), name, created: timestamp, last_updated: timestamp };
    // Insert-if-absent is atomic; a concurrent creator simply wins and we use theirs.
    await this.users.insert(fresh);
    const user = await this.users.getByKey(name);
    if (!user) throw new ConflictError(`user '${name}' vanished while its token was being created`);
    if (user.id !== fresh.id) await this.users.swap(user, { ...user, last_updated: timestamp });
    return user;
  }
}
