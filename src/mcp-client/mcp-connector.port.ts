import { DomainError } from '../kernel/errors.js';
import type { McpServerRecord } from '../records/mcp-server.js';

/** A tool as an MCP server describes it. */
export interface McpTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  /** The server says the tool changes nothing (trusted only as far as the server is). */
  readOnlyHint?: boolean;
  /** The tool runs only as a task (`execution.taskSupport: required`): called through the task API. */
  taskRequired?: boolean;
  /** Why the tool is not offered to turns although the server lists it (a task-only tool of a server without task calls). */
  notOffered?: string;
}

/**
 * One content block of a tool result, as the protocol has them: text, an image or audio (base64
 * `data`), a link to a resource, or a resource embedded with its text or base64 `blob`.
 */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; title?: string; mimeType?: string; description?: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; blob?: string };

export interface McpCallResult {
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

export interface McpRequestOptions {
  signal?: AbortSignal;
  /** Limit of the request; a tool call's restarts with each progress notification, up to `maxTotalMs`. */
  timeoutMs: number;
}

/** A progress notification of a tool call. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A flat JSON value of an elicitation's answer (the protocol allows primitives and lists of strings). */
export type ElicitedValue = string | number | boolean | string[];

/** A server's question to the user during a tool call (`elicitation/create`), in form or URL mode. */
export type McpElicitation =
  | { mode: 'form'; message: string; requestedSchema: Record<string, unknown> }
  | { mode: 'url'; message: string; url: string; elicitationId: string };

/** The user's answer, the protocol's own shape. */
export interface McpElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, ElicitedValue>;
}

/** A server's request for a model completion (`sampling/createMessage`), its text parts only. */
export interface McpSamplingRequest {
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
}

export interface McpSamplingAnswer {
  text: string;
  model: string;
}

/**
 * What a tool call hears from its server while it runs. A server's request (a question, a
 * completion) reaches the call it belongs to when that call is the only one with a hook in flight
 * on the session: the protocol ties such a request to no call, so with several it is refused.
 */
export interface McpCallHooks {
  onProgress?: (progress: McpProgress) => void;
  /** Absent: a question is cancelled. */
  elicit?: (question: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;
  /** Absent: sampling is refused. */
  sample?: (request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingAnswer>;
}

export interface McpCallOptions extends McpRequestOptions, McpCallHooks {
  /** However often it reports progress, the call ends after this long (MCP_TOOL_MAX_S); `timeoutMs` when absent. */
  maxTotalMs?: number;
  /** Run it as a task (the tool requires it): created, polled, its result fetched. */
  asTask?: boolean;
  /** Sent in the request's `_meta` beside its trace context (the chat's sealed approval of the call). */
  meta?: Record<string, string>;
}

/** An open, initialized MCP session with one server. Requests may run concurrently. */
export interface McpSession {
  /** The transport actually used (`streamable-http`, `sse` or `stdio`). */
  readonly transport: 'streamable-http' | 'sse' | 'stdio';
  listTools(options: McpRequestOptions): Promise<McpTool[]>;
  /** The protocol's liveness check: the server answers `ping`. */
  ping(options: McpRequestOptions): Promise<void>;
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult>;
  close(): Promise<void>;
}

/** The fields of a server record a connection needs (the OAuth ones absent on records from before OAuth). */
export type McpServerTarget = Pick<
  McpServerRecord,
  'id' | 'name' | 'protocol' | 'url' | 'mcp_endpoint' | 'command' | 'args' | 'destination_trusted' | 'roots'
> &
  Partial<Pick<McpServerRecord, 'auth' | 'oauth_grant' | 'oauth_client_id'>>;

/**
 * Port: opens a session with a server. `credential` is that server's own secret: with `auth`
 * secret (its `auth_secret_key`), sent as a bearer token over HTTP or handed to a stdio server in
 * its environment; with `auth` oauth, the secret of its registered OAuth client
 * (`oauth_client_secret_key`), sent to its authorization server only. `user` is whose OAuth
 * account a per-user OAuth server is reached as (their stored tokens); nothing else identifying a
 * user or this service is ever sent. A user with no usable tokens gets McpConnectRequiredError.
 */
export interface McpConnector {
  connect(server: McpServerTarget, credential: string | undefined, options: McpRequestOptions, user?: string): Promise<McpSession>;
}

/** Port: the sign-in of one user to a per-user OAuth server, through the same client as its sessions. */
export interface McpSignIn {
  /** Where the user signs in: discovery, client registration, PKCE and the state, as the protocol's authorization says. */
  begin(server: McpServerTarget, credential: string | undefined, user: string, options: McpRequestOptions): Promise<string>;
  /** Exchanges the code the user came back with for their tokens, and stores them. */
  finish(server: McpServerTarget, credential: string | undefined, user: string, sign: { code: string; verifier: string }): Promise<void>;
}

/** `url + mcp_endpoint`, without doubled slashes. */
export function mcpEndpointUrl(server: Pick<McpServerRecord, 'url' | 'mcp_endpoint'>): string {
  return joinUrl(server.url, server.mcp_endpoint);
}

/** `base` and `path` joined with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  if (!path) return base;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The session can no longer be used (the server went away, its session expired): open a new one. */
export class McpSessionLostError extends DomainError {}

/**
 * The server answered an MCP request over HTTP with a status that is no MCP answer (401, 404, 503,
 * ...): `status` says which, so a caller can tell a server that wants authorization from one that
 * is not there. Thrown by `connect`.
 */
export class McpHttpStatusError extends DomainError {
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
