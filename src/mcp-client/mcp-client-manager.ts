import type { Logger } from '../kernel/logging/logger.js';
import { authMode, perUserOAuth, type McpServerRecord } from '../records/mcp-server.js';
import {
  McpSessionLostError,
  type McpCallOptions,
  type McpCallResult,
  type McpConnector,
  type McpServerTarget,
  type McpSession,
  type McpTool,
} from './mcp-connector.port.js';

/** What the manager needs of a server record (a stored record or its API view). */
export type ManagedServer = McpServerTarget &
  Pick<McpServerRecord, 'auth_secret_key'> &
  Partial<Pick<McpServerRecord, 'oauth_client_secret_key'>>;

/** A server as the manager sees it: its record and the version its cached state is keyed by. */
export interface VersionedServer {
  server: ManagedServer;
  /**
   * Changes whenever the record is edited or the server's tool version is bumped (status flip,
   * refresh on demand): cached tools and sessions of another version are dropped.
   */
  version: string;
  /**
   * The turn's user: a server reached with each user's own OAuth account gets sessions and tool
   * lists of that user's (others share one session per server, as no user identity reaches them).
   */
  user?: string;
}

/** Sessions and tool lists are per server, or per server and user for per-user OAuth servers. */
function sessionKey({ server, user }: VersionedServer): string {
  return perUserOAuth(server) ? `${server.id}#${user ?? ''}` : server.id;
}

export interface McpClientManagerOptions {
  connector: McpConnector;
  /** Resolves a server's `auth_secret_key` to its value (workers only). */
  credentials: { resolve(name: string): Promise<string> };
  /** An idle session is closed after this long. */
  connectionTtlMs: number;
  /** Limit for opening a session (connect and initialize) and for listing tools. */
  connectTimeoutMs: number;
  logger: Logger;
  now?: () => number;
  /** Runs `sweep` every `intervalMs` until the returned stop is called (tests drive it by hand). */
  every?: (sweep: () => void, intervalMs: number) => () => void;
}

/** A timer that does not keep the process alive. */
function unrefInterval(task: () => void, intervalMs: number): () => void {
  const timer = setInterval(task, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

interface Connection {
  version: string;
  session: Promise<McpSession>;
  lastUsed: number;
  active: number;
}

/**
 * Sessions with MCP servers, reused across chat turns and closed after `connectionTtlMs` idle, and
 * each server's tool list, cached until its version changes. Each server gets only its own
 * credential; the caller's identity never reaches a server.
 */
export class McpClientManager {
  private readonly connections = new Map<string, Connection>();
  private readonly tools = new Map<string, { version: string; tools: Promise<McpTool[]> }>();
  private readonly stopSweeping: () => void;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly options: McpClientManagerOptions) {
    this.now = options.now ?? Date.now;
    this.stopSweeping = (options.every ?? unrefInterval)(
      () => this.sweep(),
      Math.max(1_000, Math.min(options.connectionTtlMs / 2, 60_000)),
    );
  }

  /** The server's tools, from the cache when its version has not changed. */
  listTools(target: VersionedServer): Promise<McpTool[]> {
    const key = sessionKey(target);
    const cached = this.tools.get(key);
    if (cached?.version === target.version) return cached.tools;
    const tools = this.withSession(target, (session) => session.listTools({ timeoutMs: this.options.connectTimeoutMs }), true);
    this.tools.set(key, { version: target.version, tools });
    // A failed listing is not kept: the next turn asks again.
    tools.catch(() => {
      if (this.tools.get(key)?.tools === tools) this.tools.delete(key);
    });
    return tools;
  }

  /** Calls a tool. A lost session is dropped (the next call opens a new one); the call is not repeated. */
  callTool(target: VersionedServer, name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult> {
    return this.withSession(target, (session) => session.callTool(name, args, options), false);
  }

  /** Number of open (or opening) sessions. */
  get openSessions(): number {
    return this.connections.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopSweeping();
    this.tools.clear();
    await Promise.all([...this.connections.keys()].map((id) => this.drop(id)));
  }

  private async withSession<T>(target: VersionedServer, use: (session: McpSession) => Promise<T>, retryOnLoss: boolean): Promise<T> {
    const connection = this.connection(target);
    connection.active++;
    try {
      return await use(await connection.session);
    } catch (error) {
      const lost = error instanceof McpSessionLostError;
      if (
        lost ||
        !(await connection.session.then(
          () => true,
          () => false,
        ))
      )
        await this.drop(sessionKey(target), connection);
      if (lost && retryOnLoss) return this.withSession(target, use, false);
      throw error;
    } finally {
      connection.active--;
      connection.lastUsed = this.now();
    }
  }

  private connection(target: VersionedServer): Connection {
    // A plain Error: roles close the manager after their workers stop, so a use after close is a bug.
    if (this.closed) throw new Error('the MCP client manager is closed');
    const key = sessionKey(target);
    const existing = this.connections.get(key);
    if (existing?.version === target.version) return existing;
    if (existing) void this.drop(key, existing);
    const session = this.open(target);
    session.catch(() => undefined);
    const connection: Connection = { version: target.version, session, lastUsed: this.now(), active: 0 };
    this.connections.set(key, connection);
    return connection;
  }

  private async open({ server, user }: VersionedServer): Promise<McpSession> {
    const secretName = authMode(server) === 'oauth' ? server.oauth_client_secret_key : server.auth_secret_key;
    const credential = secretName ? await this.options.credentials.resolve(secretName) : undefined;
    const options = { timeoutMs: this.options.connectTimeoutMs };
    const session = await this.options.connector.connect(server, credential, options, perUserOAuth(server) ? user : undefined);
    this.options.logger.debug('mcp session opened', { server: server.name, transport: session.transport });
    return session;
  }

  /** Closes the session under `key` (only `expected`, when given, so a newer one is left alone). */
  private async drop(key: string, expected?: Connection): Promise<void> {
    const connection = this.connections.get(key);
    if (!connection || (expected && connection !== expected)) return;
    this.connections.delete(key);
    const session = await connection.session.catch(() => undefined);
    await session?.close().catch(() => undefined);
  }

  private sweep(): void {
    const idleSince = this.now() - this.options.connectionTtlMs;
    for (const [id, connection] of this.connections) {
      if (connection.active === 0 && connection.lastUsed <= idleSince) void this.drop(id, connection);
    }
  }
}
