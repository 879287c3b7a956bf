import type { Schemas } from '../../../src/api/openapi-types.js';
import { RECORD_KINDS } from '../../../src/records/record-kinds.js';
import { errorMessage } from '../api.js';
import { byId, el } from '../dom.js';
import { badge, timeElement } from '../format.js';
import { openFormDialog, type FieldSpec, type FormValues } from '../form-dialog.js';
import { actions, KeyedTable, named, cellContent, type RowAction } from './keyed-table.js';
import { recordPath, removeConfirmed, secretNames, SectionFrame, type AdminContext, type AdminSection } from './section.js';

const { path: SERVERS, permissions } = RECORD_KINDS.mcpServers;
/** The statuses the service seeds (README, "Statuses"). */
const STATUSES = ['Unknown', 'Healthy', 'Unhealthy', 'Maintenance'];
/** What a check found: given by health checks, or by a superuser. */
const CHECKED_STATUSES = new Set(['Healthy', 'Unhealthy']);

export type McpServer = Schemas['MCPServer'];
type HealthCheck = Schemas['MCPHealthCheck'];

const isHttp = (values: FormValues) => values.protocol !== 'stdio';
const isOAuth = (values: FormValues) => isHttp(values) && values.auth === 'oauth';

/** Of a per-user OAuth server: whether the signed-in user has connected their own account. */
type ShownServer = McpServer & { connected?: boolean };

/** How the service signs in to the server, as the table says it. */
function authNote(server: ShownServer): string {
  if (server.auth === 'oauth' && server.oauth_grant === 'client_credentials') return 'OAuth: one service account (client credentials)';
  if (server.auth === 'oauth') return `OAuth: each user signs in (you: ${server.connected ? 'connected' : 'not connected'})`;
  return server.auth === 'secret' ? 'bearer secret' : 'no authentication';
}

/**
 * The form's fields for each protocol. Starting a program on the workers, deciding where a secret
 * goes and taking calls out of their user's approval are superuser business: other tokens are
 * offered neither stdio commands nor a secret (a stdio server they may still rename or describe),
 * nor the internal kind or approval `never` unless the server has them already, nor a status
 * only a check gives.
 */
function serverFields(server: McpServer | null, superuser: boolean, secrets: string[]): FieldSpec[] {
  const stdioOffered = superuser || server?.protocol === 'stdio';
  const kept = (field: 'mcp_type' | 'approval', value: string) => superuser || server?.[field] === value;
  const statusOffered = (status: string) => superuser || !CHECKED_STATUSES.has(status) || server?.status?.name === status;
  return [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxLength: 100 },
    { name: 'description', label: 'Description', kind: 'text', maxLength: 200 },
    {
      name: 'protocol',
      label: 'Protocol',
      kind: 'select',
      options: [
        { value: 'http', label: 'HTTP (Streamable HTTP, or HTTP+SSE)' },
        ...(stdioOffered ? [{ value: 'stdio', label: 'stdio (a program the workers start)' }] : []),
      ],
    },
    {
      name: 'server_url',
      label: 'Base URL',
      kind: 'url',
      required: true,
      placeholder: 'https://',
      hint: 'The tools are at this URL plus the MCP path.',
      shown: isHttp,
    },
    { name: 'mcp_endpoint', label: 'MCP path', kind: 'text', hint: 'Starts with /; default /mcp.', shown: isHttp },
    {
      name: 'health_check',
      label: 'Health check path',
      kind: 'text',
      hint: 'Empty (default): checked by the protocol (MCP initialize, then ping). A path (starts with /): GET it, any 2xx passes.',
      shown: isHttp,
    },
    ...(superuser
      ? ([
          {
            name: 'command',
            label: 'Command',
            kind: 'text',
            required: true,
            hint: 'The program to start, found on the workers’ PATH.',
            shown: (values: FormValues) => !isHttp(values),
          },
          { name: 'args', label: 'Arguments, one per line', kind: 'lines', shown: (values: FormValues) => !isHttp(values) },
        ] satisfies FieldSpec[])
      : []),
    {
      name: 'mcp_type',
      label: 'Kind',
      kind: 'select',
      options: [
        ...(kept('mcp_type', 'internal') ? [{ value: 'internal', label: 'Internal (run by your team)' }] : []),
        { value: 'external', label: 'External (its tool annotations are not trusted)' },
      ],
    },
    {
      name: 'approval',
      label: 'Approval',
      kind: 'select',
      options: [
        { value: 'writes', label: 'Writes: calls of tools not marked read-only wait for the user (every call of an external server)' },
        { value: 'always', label: 'Always: every call waits for the user' },
        ...(kept('approval', 'never') ? [{ value: 'never', label: 'Never: calls run without asking' }] : []),
      ],
      hint: 'Whether the agent asks the chatting user before calling this server’s tools.',
    },
    {
      name: 'status',
      label: 'Status',
      kind: 'select',
      options: STATUSES.filter(statusOffered).map((value) => ({ value, label: value })),
      hint: 'Maintenance: never checked and never used in chat. Health checks set the others.',
    },
    {
      name: 'auth',
      label: 'Authentication',
      kind: 'select',
      options: [
        { value: 'none', label: 'None' },
        ...(superuser || server?.auth === 'secret' ? [{ value: 'secret', label: 'A bearer secret' }] : []),
        { value: 'oauth', label: 'OAuth 2.1 (HTTP only)' },
      ],
    },
    {
      name: 'oauth_grant',
      label: 'OAuth accounts',
      kind: 'select',
      options: [
        { value: 'authorization_code', label: 'Each user signs in with their own account (Connect on the chat page)' },
        ...(superuser || server?.oauth_grant === 'client_credentials'
          ? [{ value: 'client_credentials', label: 'One service account for every user (client credentials)' }]
          : []),
      ],
      shown: isOAuth,
    },
    {
      name: 'oauth_client_id',
      label: 'OAuth client id (optional)',
      kind: 'text',
      hint: 'A client registered beforehand; empty: the service registers itself.',
      shown: isOAuth,
    },
    ...(superuser
      ? ([
          {
            name: 'auth_secret_key',
            label: 'Authentication secret',
            kind: 'text',
            suggestions: secrets,
            hint: 'Sent to this server only: as a bearer token over HTTP, as MCP_AUTH_TOKEN to a stdio program.',
            shown: (values: FormValues) => values.auth === 'secret',
          },
          {
            name: 'oauth_client_secret_key',
            label: 'OAuth client secret (optional)',
            kind: 'text',
            suggestions: secrets,
            hint: 'The secret of that client, sent to its authorization server only.',
            shown: isOAuth,
          },
          {
            name: 'sampling',
            label: 'Allow sampling',
            kind: 'checkbox',
            hint: 'The server may ask the turn’s model for completions during a tool call, counted in the user’s token usage.',
          },
        ] satisfies FieldSpec[])
      : []),
  ];
}

/** How the server's health is checked: GET its health path, or the protocol. */
function healthCheckLabel(server: Pick<McpServer, 'protocol' | 'health_check'>): string {
  return server.protocol === 'http' && server.health_check ? `GET ${server.health_check}` : 'protocol (initialize, ping)';
}

function withoutRoots({ roots: _roots, ...server }: McpServer): Omit<McpServer, 'roots'> {
  return server;
}

/** MCP servers: health at a glance (refreshed by itself), check now, create, edit and delete. */
export class ServersSection implements AdminSection {
  private readonly checking = new Set<string>();
  private readonly statuses = new Map<string, string>();
  private servers: ShownServer[] = [];
  private readonly table = new KeyedTable<ShownServer>(
    byId('servers', HTMLTableElement),
    (server) => server.id,
    [
      named(),
      cellContent((server) => badge(server.status?.name)),
      cellContent((server) => [
        el(
          'code',
          {},
          server.protocol === 'http' ? `${server.server_url}${server.mcp_endpoint}` : [server.command, ...server.args].join(' '),
        ),
        el('span', { class: 'cell-note' }, `${server.protocol === 'http' ? '' : 'stdio, '}health: ${healthCheckLabel(server)}`),
        el('span', { class: 'cell-note' }, authNote(server)),
      ]),
      cellContent((server) => [
        timeElement(server.last_checked),
        ...(server.last_check_method ? [el('span', { class: 'cell-note' }, `${server.last_check_method} check`)] : []),
      ]),
      cellContent((server) => (server.latency_ms === null ? el('span', { class: 'muted' }, '—') : `${Math.round(server.latency_ms)} ms`)),
      cellContent((server) => server.last_error ?? ''),
      actions(
        (server) => server.id,
        (server) => server.name,
        (server) => this.rowActions(server),
      ),
    ],
    'No MCP servers yet.',
  );

  private readonly frame: SectionFrame;

  constructor(private readonly context: AdminContext) {
    this.frame = new SectionFrame(context.access, { name: 'servers', permission: permissions.view, what: 'list MCP servers' });
    const { access } = context;
    this.frame.offerAdd(access.canWrite(permissions.add), () => void this.edit(null));
    this.table.onAction((action, id) => void this.act(action, id));
  }

  load(): Promise<void> {
    return this.frame.run(async () => {
      this.servers = await this.context.api.every<McpServer>(`${SERVERS}?limit=1000`);
      const changes: string[] = [];
      for (const server of this.servers) {
        const status = server.status?.name ?? 'Unknown';
        const before = this.statuses.get(server.id);
        if (before !== undefined && before !== status) changes.push(`${server.name} is now ${status}.`);
        this.statuses.set(server.id, status);
      }
      if (changes.length > 0) this.context.announce(changes.join(' '));
      this.table.update(this.servers);
    });
  }

  private rowActions(server: McpServer): RowAction[] {
    const { access } = this.context;
    const list: RowAction[] = [];
    if (access.canWrite(permissions.change)) {
      list.push({ action: 'check', label: 'Check now', busy: this.checking.has(server.id) ? 'Checking…' : undefined });
      list.push({ action: 'edit', label: 'Edit' });
    }
    if (access.canWrite(permissions.delete)) list.push({ action: 'delete', label: 'Delete', danger: true });
    if (server.connected !== undefined)
      list.push(
        server.connected ? { action: 'disconnect', label: 'Disconnect my account' } : { action: 'connect', label: 'Connect my account' },
      );
    return list;
  }

  private async act(action: string, id: string): Promise<void> {
    const server = this.servers.find((candidate) => candidate.id === id);
    if (!server) return;
    if (action === 'check') await this.checkNow(server);
    else if (action === 'connect' || action === 'disconnect') await this.connection(server, action);
    else if (action === 'edit')
      await this.edit(server).catch((failure: unknown) =>
        this.context.announce(`${server.name} cannot be edited: ${errorMessage(failure)}`),
      );
    else if (action === 'delete') {
      await removeConfirmed(this.context, {
        title: `Delete MCP server ${server.name}?`,
        message: 'Chat turns stop offering its tools; its health history goes with it.',
        action: 'Delete server',
        request: () => this.context.api.request('DELETE', recordPath(SERVERS, server.id)),
        done: `MCP server ${server.name} deleted.`,
      });
    }
  }

  /** Connect opens the server's sign-in in a new tab (the account is connected once it comes back); disconnect forgets it. */
  private async connection(server: McpServer, action: 'connect' | 'disconnect'): Promise<void> {
    const path = `${recordPath(SERVERS, server.id)}connect/`;
    try {
      if (action === 'disconnect') {
        await this.context.api.request('DELETE', path);
        this.context.announce(`Your account is disconnected from ${server.name}.`);
      } else {
        const { authorization_url: url } = await this.context.api.request<Schemas['McpConnect']>('POST', path);
        window.open(url, '_blank', 'noopener');
        this.context.announce(`Sign in to ${server.name} in the new tab; your account is connected when it says so.`);
      }
    } catch (failure) {
      this.context.announce(`${server.name}: ${errorMessage(failure)}`);
    }
    await this.context.changed();
  }

  private async checkNow(server: McpServer): Promise<void> {
    this.checking.add(server.id);
    this.table.update(this.servers);
    try {
      const result = await this.context.api.request<HealthCheck>('POST', `${recordPath(SERVERS, server.id)}health-check/`);
      const latency = result.latency_ms === null ? '' : ` in ${Math.round(result.latency_ms)} ms`;
      this.context.announce(
        result.healthy
          ? `${server.name}: check passed${latency}; status ${result.status ?? 'unknown'}.`
          : `${server.name}: check failed${latency}${result.error ? ` (${result.error})` : ''}; status ${result.status ?? 'unknown'}.`,
      );
    } catch (failure) {
      this.context.announce(`${server.name}: the check could not run: ${errorMessage(failure)}`);
    } finally {
      this.checking.delete(server.id);
    }
    await this.context.changed();
  }

  private async edit(server: McpServer | null): Promise<void> {
    const { api, access } = this.context;
    const superuser = access.canWrite('superuser');
    const saved = await openFormDialog({
      title: server ? `Edit MCP server ${server.name}` : 'Add an MCP server',
      submit: server ? 'Save changes' : 'Create server',
      fields: serverFields(server, superuser, superuser ? await secretNames(this.context) : []),
      // Roots are set through the API (the form has no field for a list of objects) and kept as they are.
      values: server
        ? { ...withoutRoots(server), status: server.status?.name ?? 'Unknown' }
        : {
            protocol: 'http',
            mcp_endpoint: '/mcp',
            health_check: '',
            mcp_type: superuser ? 'internal' : 'external',
            approval: 'writes',
            status: 'Unknown',
            auth: 'none',
            oauth_grant: 'authorization_code',
            args: [],
          },
      send: async (body) => {
        const sent = await api.request<McpServer>(server ? 'PATCH' : 'POST', server ? recordPath(SERVERS, server.id) : SERVERS, { body });
        this.context.announce(
          server ? `MCP server ${sent.name} saved.` : `MCP server ${sent.name} created; its first health check runs now.`,
        );
      },
    });
    if (saved) await this.context.changed();
  }
}
