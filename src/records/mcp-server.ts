import type { Schemas } from '../api/openapi-types.js';
import { ValidationError } from '../kernel/errors.js';
import { HealthStatus } from './status.js';
import {
  admitSecretCarrier,
  admitSuperuserFlag,
  admitStdioCommand,
  destinationChanged,
  keepSuperuserFields,
  refused,
  type SecretCarrier,
  type TrustedDestination,
  type WriteContext,
} from './record-write-rules.js';
import type { BaseRecord } from './record-collection.port.js';
import type { Filters, RecordKind } from './record-service.js';
import type { KindContext } from './records.js';
import { readsAs } from './record-name.js';
import type { StatusRecord } from './status.js';
import { textMatches } from './text-match.js';

/** The name under which chat turns list the built-in platform tools; no MCP server may take it. */
export const BUILTIN_SERVER = 'built-in';

/**
 * Which of a server's tool calls wait for the asking user's decision: `writes`, those not
 * annotated read-only (every call of an external server, whose annotations are not trusted);
 * `always`; `never`.
 */
export type McpApproval = Schemas['MCPApproval'];
export const NEW_SERVER_STATUS = 'Unknown';

/**
 * The writable fields, as the OpenAPI document's MCPServerInput has them (`status`: a status id or
 * name). `url` is the server's address, as the original app's clients write it; `server_url`, the
 * name reads show it under (a record's `url` being its own API address), wins when both are sent.
 */
export type McpServerFields = Required<Omit<Schemas['MCPServerInput'], 'id' | 'server_url'>> &
  Pick<Schemas['MCPServerInput'], 'server_url'>;

/** Written by health checks only. */
export interface McpServerHealth {
  last_checked: string | null;
  last_error: string | null;
  latency_ms: number | null;
  /** Which check ran last: `protocol` (initialize, ping) or `http` (the health path); null before any (records stored before it was kept lack it: read as null). */
  last_check_method: 'protocol' | 'http' | null;
}

export type McpServerRecord = BaseRecord & Omit<McpServerFields, 'status'> & McpServerHealth & TrustedDestination & { status_id: string };

/** A server as reads show it: its address under `server_url`, since clients of Nautobot and NetBox read `url` as the record's own API address. */
export type McpServerView = BaseRecord &
  Omit<McpServerFields, 'status' | 'url' | 'server_url'> &
  McpServerHealth & { server_url: string; display: string; status: { id: string; name: string } | null };

/** Finds a status by id or by name, so clients can write either. */
function resolveStatus(statuses: StatusRecord[], ref: string): StatusRecord | undefined {
  return statuses.find((status) => status.id === ref) ?? statuses.find((status) => status.name.toLowerCase() === ref.toLowerCase());
}

/** `addressField`: the name the client wrote the address under (`url`, or `server_url`), where a missing one is reported. */
function checkTransport(fields: McpServerFields, addressField: 'url' | 'server_url'): void {
  // Approvals and the audit log name the built-in tools' source so: no server may pass for it, nor read as it.
  if (readsAs(fields.name, BUILTIN_SERVER)) {
    throw ValidationError.field('name', `'${BUILTIN_SERVER}' names the built-in platform tools: choose another name.`);
  }
  if (fields.protocol === 'http' && !fields.url) {
    throw ValidationError.field(addressField, 'An http MCP server needs a url.');
  }
  if (fields.protocol === 'stdio' && !fields.command) {
    throw ValidationError.field('command', 'A stdio MCP server needs a command to start.');
  }
  if (fields.auth === 'oauth' && fields.protocol !== 'http') {
    throw ValidationError.field('auth', 'OAuth is spoken over HTTP: a stdio MCP server takes a secret (or nothing).');
  }
  if (fields.auth === 'secret' && !fields.auth_secret_key) {
    throw ValidationError.field('auth_secret_key', 'auth secret needs the name of the secret sent as a bearer token.');
  }
  if (
    fields.auth === 'oauth' &&
    fields.oauth_grant === 'client_credentials' &&
    !(fields.oauth_client_id && fields.oauth_client_secret_key)
  ) {
    throw ValidationError.field(
      'oauth_client_id',
      'A client credentials grant needs the registered client: oauth_client_id and oauth_client_secret_key.',
    );
  }
}

/** What a new MCP server is unless told otherwise (its status aside: new servers are Unknown). */
export function mcpServerDefaults(): Omit<McpServerFields, 'name' | 'status'> {
  return {
    protocol: 'http',
    url: '',
    command: '',
    args: [],
    mcp_endpoint: '/mcp',
    health_check: '',
    description: '',
    mcp_type: 'internal',
    approval: 'writes',
    auth_secret_key: '',
    sampling: false,
    roots: [],
    auth: 'none',
    oauth_grant: 'authorization_code',
    oauth_client_id: '',
    oauth_client_secret_key: '',
  };
}

export type McpAuth = Schemas['MCPAuth'];

/** How the service authenticates to the server; records written before `auth` existed read as `secret` when they name one. */
export function authMode(server: Pick<McpServerRecord, 'auth_secret_key'> & { auth?: McpAuth }): McpAuth {
  return server.auth ?? (server.auth_secret_key ? 'secret' : 'none');
}

/** The server is reached with each user's own OAuth account (not a service account, a secret or nothing). */
export function perUserOAuth(server: Pick<McpServerRecord, 'auth_secret_key'> & { auth?: McpAuth; oauth_grant?: McpOAuthGrant }): boolean {
  return authMode(server) === 'oauth' && server.oauth_grant !== 'client_credentials';
}

export type McpOAuthGrant = Schemas['MCPOAuthGrant'];

/** The OAuth fields a superuser set up and only a superuser changes: the client, its secret, the grant. */
const OAUTH_SUPERUSER_FIELDS = ['auth_secret_key', 'oauth_client_id', 'oauth_client_secret_key', 'oauth_grant'] as const;

/**
 * Naming the OAuth client's secret and giving the server a service account (client credentials:
 * every user acts as one account) are superuser business; a server pointed elsewhere by anyone else
 * loses both, as its secret reference does.
 */
function admitOAuthClient({ next, previous, actor }: WriteContext<McpServerRecord>, destinationMoved: boolean): McpServerRecord {
  if (actor.superuser) return next;
  if (next.oauth_grant === 'client_credentials' && previous?.oauth_grant !== 'client_credentials') {
    throw refused(
      'oauth_grant: only a superuser may give an MCP server a service account (client_credentials): every user would act as it.',
    );
  }
  if (next.oauth_client_secret_key && next.oauth_client_secret_key !== previous?.oauth_client_secret_key) {
    throw refused('Only a superuser may name a secret on an MCP server (oauth_client_secret_key).');
  }
  return destinationMoved ? { ...next, oauth_client_secret_key: '', oauth_grant: 'authorization_code' } : next;
}

const mcpServerOAuthDefaults = { oauth_grant: 'authorization_code', oauth_client_id: '', oauth_client_secret_key: '' } as const;

/** Where the server's secret goes: its address and paths over HTTP, its program over stdio. */
const secretCarrier: SecretCarrier<McpServerRecord> = {
  label: 'MCP server',
  secretField: 'auth_secret_key',
  destinationFields: ['protocol', 'url', 'mcp_endpoint', 'health_check', 'command', 'args'],
  url: (record) => (record.protocol === 'http' ? { field: 'url', value: record.url } : null),
};

function stdioChanged(next: McpServerRecord, previous: McpServerRecord | undefined): boolean {
  if (next.protocol !== 'stdio') return false;
  return (
    !previous ||
    previous.protocol !== 'stdio' ||
    previous.command !== next.command ||
    JSON.stringify(previous.args) !== JSON.stringify(next.args)
  );
}

/**
 * Whether a server's tool calls wait for their user's decision is superuser business: `approval:
 * never` takes the decision away, and `mcp_type: internal` trusts the server's own read-only
 * annotations. Anyone else may not ask for either; their new server is external unless a superuser
 * says otherwise, and a server they point elsewhere loses both with its secret, as a superuser
 * trusted its old destination, not the new one.
 */
function admitApprovalPolicy(write: WriteContext<McpServerRecord>): McpServerRecord {
  const { previous, sent, actor } = write;
  if (actor.superuser) return write.next;
  if (write.next.approval === 'never' && previous?.approval !== 'never') {
    throw refused("approval: only a superuser may let an MCP server's tool calls run without their user's approval (never).");
  }
  let next = write.next;
  if (previous?.destination_trusted && APPROVAL_STRICTNESS[next.approval] < APPROVAL_STRICTNESS[previous.approval]) {
    // A PUT that leaves approval out keeps the superuser's; asking for less is refused.
    if (sent.includes('approval')) {
      throw refused(
        `approval: only a superuser may relax the approval of an MCP server a superuser set up (${previous.approval} to ${next.approval}).`,
      );
    }
    next = { ...next, approval: previous.approval };
  }
  if (next.mcp_type === 'internal' && previous?.mcp_type !== 'internal') {
    if (sent.includes('mcp_type'))
      throw refused("mcp_type: only a superuser may mark an MCP server internal: its tools' read-only annotations are then trusted.");
    // The default (a new server, a PUT without it) is internal only on a superuser's word.
    next = { ...next, mcp_type: 'external' };
  }
  if (!destinationChanged(secretCarrier, write)) return next;
  return { ...next, mcp_type: 'external', approval: next.approval === 'never' ? 'writes' : next.approval };
}

/** How many of a server's calls wait for a decision: a writer short of superuser may only raise it on a superuser's server. */
const APPROVAL_STRICTNESS: Readonly<Record<McpApproval, number>> = { never: 0, writes: 1, always: 2 };

/** The statuses only a health check (or a superuser) gives: they say what a check found. */
const CHECKED_STATUSES: ReadonlySet<string> = new Set([HealthStatus.Healthy, HealthStatus.Unhealthy]);

/**
 * Healthy and Unhealthy are what a check found: anyone short of superuser may set Unknown (check it
 * now) or Maintenance only, so a server they add is offered to chats only once it passes. A server
 * pointed elsewhere has not been checked there: it is Unknown again (checked at once) unless it is
 * in Maintenance or a superuser says what it is.
 */
function admitStatus(write: WriteContext<McpServerRecord>, all: StatusRecord[]): McpServerRecord {
  const { next, previous, sent, actor } = write;
  const nameOf = (id: string | undefined) => all.find((status) => status.id === id)?.name ?? '';
  if (!actor.superuser && next.status_id !== previous?.status_id && CHECKED_STATUSES.has(nameOf(next.status_id))) {
    throw refused(
      `status: only a health check (or a superuser) may set an MCP server ${nameOf(next.status_id)}; set Unknown to have it checked now, or Maintenance.`,
    );
  }
  if (!previous || !CHECKED_STATUSES.has(nameOf(next.status_id)) || !destinationChanged(secretCarrier, write)) return next;
  if (actor.superuser && sent.includes('status')) return next;
  const unknown = all.find((status) => status.name === NEW_SERVER_STATUS);
  return unknown ? { ...next, status_id: unknown.id } : next;
}

export function mcpServerKind({
  statuses,
  rules,
}: Pick<KindContext, 'statuses' | 'rules'>): RecordKind<McpServerRecord, McpServerFields, McpServerView> {
  return {
    label: 'MCP server',
    defaults: () => ({ status: NEW_SERVER_STATUS, ...mcpServerDefaults() }),
    writable: ({
      status_id,
      id: _id,
      created: _c,
      last_updated: _u,
      last_checked: _lc,
      last_error: _le,
      latency_ms: _l,
      last_check_method: _m,
      destination_trusted: _t,
      ...fields
    }) => ({
      ...fields,
      status: status_id,
    }),
    async toRecord({ status, server_url, ...sent }, base, previous) {
      const given = server_url === undefined ? sent : { ...sent, url: server_url };
      // A secret named with no `auth` (a client from before it) is the secret mode.
      const fields = given.auth === 'none' && given.auth_secret_key ? { ...given, auth: 'secret' as const } : given;
      checkTransport({ status, ...fields }, server_url === undefined ? 'url' : 'server_url');
      const resolved = resolveStatus((await statuses.all()).records, status);
      if (!resolved) throw ValidationError.field('status', `No status named or with id '${status}'.`);
      return {
        ...base,
        ...fields,
        status_id: resolved.id,
        last_checked: previous?.last_checked ?? null,
        last_error: previous?.last_error ?? null,
        latency_ms: previous?.latency_ms ?? null,
        last_check_method: previous?.last_check_method ?? null,
      };
    },
    async admit(write) {
      if (stdioChanged(write.next, write.previous)) admitStdioCommand(write.next.command, write.actor, rules);
      const kept = { ...write, next: keepSuperuserFields(secretCarrier.label, OAUTH_SUPERUSER_FIELDS, write) };
      const client = { ...kept, next: admitOAuthClient(kept, destinationChanged(secretCarrier, write)) };
      const sampling = { ...client, next: admitSuperuserFlag(secretCarrier, 'sampling', client) };
      const next = admitStatus({ ...sampling, next: admitApprovalPolicy(sampling) }, (await statuses.all()).records);
      return admitSecretCarrier(secretCarrier, { ...write, next }, rules);
    },
    secretsNamed: (record) => [record.auth_secret_key, record.oauth_client_secret_key],
    async present(records) {
      const byId = new Map((await statuses.all()).records.map((status) => [status.id, status]));
      return records.map(({ status_id, destination_trusted: _trusted, url, ...record }) => {
        const status = byId.get(status_id);
        return {
          ...mcpServerOAuthDefaults,
          ...record,
          server_url: url,
          auth: authMode(record),
          // Records stored before these were kept lack them.
          roots: record.roots ?? [],
          last_check_method: record.last_check_method ?? null,
          // Records stored before `sampling` existed never allowed it.
          sampling: record.sampling === true,
          display: record.name,
          status: status ? { id: status.id, name: status.name } : null,
        };
      });
    },
    async filter(filters: Filters) {
      const wanted = filters.status === undefined ? undefined : resolveStatus((await statuses.all()).records, String(filters.status));
      return (record) =>
        (filters.status === undefined || record.status_id === wanted?.id) &&
        (filters.name === undefined || record.name === filters.name) &&
        (filters.protocol === undefined || record.protocol === filters.protocol) &&
        (filters.mcp_type === undefined || record.mcp_type === filters.mcp_type) &&
        textMatches(filters.q, record.name, record.description, record.url);
    },
  };
}
