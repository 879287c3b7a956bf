import { setMaxListeners } from 'node:events';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { takeResult } from '@modelcontextprotocol/sdk/shared/responseMessage.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ContentBlock,
  type CreateMessageResult,
  CreateMessageRequestSchema,
  type ElicitResult,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type McpCallHooks,
  type McpCallOptions,
  type McpCallResult,
  type McpConnector,
  type McpContent,
  mcpEndpointUrl,
  McpHttpStatusError,
  type McpRequestOptions,
  type McpServerTarget,
  type McpSession,
  McpSessionLostError,
  type McpSignIn,
  type McpTool,
} from '../mcp-connector.port.js';
import { McpConnectRequiredError } from '../mcp-oauth.port.js';
import { type McpOAuthSettings, serverScopedFetch, StoredOAuthProvider } from './sdk-oauth.adapter.js';
import { ConflictError, UpstreamError } from '../../kernel/errors.js';
import type { OutboundPolicy } from '../../kernel/http/outbound-policy.js';
import { redactError, redactStrings } from '../../kernel/security/redact-secrets.js';
import { cappedResponse } from '../../kernel/http/capped-response.js';
import { linkedSignal } from '../../kernel/linked-signal.js';
import type { OutboundFetch } from '../../kernel/http/outbound-fetch.js';
import { traceCarrier } from '../../kernel/tracing/tracing.js';

/** The environment variable a stdio server finds its own credential in. */
export const STDIO_CREDENTIAL_VARIABLE = 'MCP_AUTH_TOKEN';

/** Streamable HTTP answers these when a server only speaks the older HTTP+SSE transport. */
const NOT_STREAMABLE = new Set([400, 404, 405]);

export interface SdkConnectorOptions {
  /** Shown to servers in `initialize`. */
  clientName: string;
  clientVersion: string;
  /** The transport over HTTP, by whether the server's address is trusted (the outbound policy). */
  outbound: OutboundFetch;
  /** The OAuth client's storage and callback; without it an OAuth server cannot be reached. */
  oauth?: McpOAuthSettings & { policy: Pick<OutboundPolicy, 'refusesUrl'> };
}

/** The most bytes of one answer of a server over HTTP (a tool result, a page of tools): a model sees a few thousand characters of a result. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** `fetch` whose answers to requests (POST) stop at MAX_RESPONSE_BYTES; the long-lived event stream (GET) is left whole. */
function cappedFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET').toUpperCase() === 'GET') return response;
    return cappedResponse(
      response,
      MAX_RESPONSE_BYTES,
      () => new UpstreamError(`the MCP server answered more than ${MAX_RESPONSE_BYTES} bytes`),
    );
  };
}

/** The most pages and tools of one server's list: every turn offers every tool to the model. */
const MAX_TOOL_PAGES = 20;
const MAX_TOOLS = 1_000;

function requestOptions({ signal, timeoutMs }: McpRequestOptions) {
  return { timeout: timeoutMs, maxTotalTimeout: timeoutMs, ...(signal ? { signal } : {}) };
}

/**
 * A tool call's: a progress token goes with it (the SDK sends one when there is a listener) and its
 * signal aborting sends `notifications/cancelled`. Each progress notification restarts `timeoutMs`,
 * up to `maxTotalMs`; a call that may ask the user a question is bounded here by `maxTotalMs` only,
 * its caller holding its idle limit while the user answers.
 */
function callOptions(options: McpCallOptions) {
  const maxTotalTimeout = Math.max(options.timeoutMs, options.maxTotalMs ?? options.timeoutMs);
  return {
    ...requestOptions(options),
    timeout: options.elicit ? maxTotalTimeout : options.timeoutMs,
    maxTotalTimeout,
    resetTimeoutOnProgress: true,
    onprogress: (progress: { progress: number; total?: number; message?: string }) => options.onProgress?.(progress),
  };
}

/**
 * What this client declares: questions to the user in both modes, and sampling (refused unless the
 * server's record allows it). A form the user accepts without a field the schema gives a default
 * for is sent with that default (SEP-1034), filled in by the SDK.
 */
const CLIENT_CAPABILITIES = { roots: {}, elicitation: { form: { applyDefaults: true }, url: {} }, sampling: {} };

/** The protocol's code for a request the user (here: the service, for them) rejected. */
const USER_REJECTED = -1;

/** `McpError.code` is a plain number; this one ends the session. */
const CONNECTION_CLOSED: number = ErrorCode.ConnectionClosed;

/** Protocol errors (unknown tool, bad arguments, a timeout) leave the session usable; anything else does not. */
async function classified<T>(request: Promise<T>, options: McpRequestOptions): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (options.signal?.aborted || (error instanceof McpError && error.code !== CONNECTION_CLOSED)) throw error;
    throw new McpSessionLostError((error as Error).message, { cause: error });
  }
}

/** A content block as the port has it: what the protocol defines, without annotations and `_meta`. */
function toContent(block: ContentBlock): McpContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, data: block.data, mimeType: block.mimeType };
    case 'resource_link': {
      const { uri, name, title, mimeType, description } = block;
      return { type: 'resource_link', uri, name, ...defined({ title, mimeType, description }) };
    }
    case 'resource': {
      const { uri, mimeType } = block.resource;
      const body = 'text' in block.resource ? { text: block.resource.text } : { blob: block.resource.blob };
      return { type: 'resource', uri, ...defined({ mimeType }), ...body };
    }
  }
}

/** `fields` without its undefined values. */
function defined<T extends Record<string, string | undefined>>(fields: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => typeof value === 'string')) as Partial<Record<keyof T, string>>;
}

function toResult(result: CallToolResult): McpCallResult {
  return {
    content: result.content.map(toContent),
    ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}),
    isError: result.isError === true,
  };
}

/** An HTTP answer that was no MCP answer, as the port says it (the status kept, for health checks to tell causes apart). */
function httpStatusError(error: unknown): unknown {
  const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  if (status === undefined || status < 100 || status > 599) return error;
  return new McpHttpStatusError(status, `the MCP endpoint answered HTTP ${status} (${(error as Error).message})`, { cause: error });
}

/**
 * A session whose server was given `credential`: whatever the server says back (an error body that
 * quotes the Authorization header, a tool list, a result) reaches chats, models and logs without it.
 */
class SdkSession implements McpSession {
  constructor(
    private readonly client: Client,
    readonly transport: McpSession['transport'],
    private readonly credential: () => string | undefined,
    /** The hooks of the tool calls in flight on this session. */
    private readonly calls: Set<McpCallHooks>,
    /** What an error becomes: a per-user OAuth server's refusal, once its refresh failed, asks its user to sign in again. */
    private readonly explain: (error: unknown) => Promise<unknown>,
  ) {}

  /**
   * Every page of the server's tools, within one `timeoutMs` for them all: a server that pages for
   * ever or lists thousands of tools is refused (and left out of turns) rather than holding every
   * turn up.
   */
  async listTools(options: McpRequestOptions): Promise<McpTool[]> {
    const deadline = linkedSignal([options.signal], options.timeoutMs);
    const bounded = { ...options, signal: deadline.signal };
    // Each page's request listens on it until the list is read.
    setMaxListeners(MAX_TOOL_PAGES + 1, bounded.signal);
    try {
      return await this.everyTool(bounded);
    } finally {
      deadline.dispose();
    }
  }

  /** The pages of the list, one after another, each under `bounded`'s signal. */
  private async everyTool(bounded: McpRequestOptions): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await this.withoutCredential(
        classified(this.client.listTools(cursor ? { cursor } : {}, requestOptions(bounded)), bounded),
      );
      const taskCalls = this.client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
      for (const tool of page.tools) {
        const taskRequired = tool.execution?.taskSupport === 'required';
        tools.push({
          name: tool.name,
          description: tool.description ?? '',
          inputSchema: tool.inputSchema,
          ...(tool.annotations?.readOnlyHint === undefined ? {} : { readOnlyHint: tool.annotations.readOnlyHint }),
          ...(taskRequired ? { taskRequired } : {}),
          ...(taskRequired && !taskCalls
            ? { notOffered: 'the tool runs only as a task, and the server does not declare task-augmented tool calls' }
            : {}),
        });
      }
      cursor = page.nextCursor;
      if (!cursor) return tools;
      if (tools.length > MAX_TOOLS || pages >= MAX_TOOL_PAGES) {
        throw new UpstreamError(
          `the server lists more than ${tools.length > MAX_TOOLS ? `${MAX_TOOLS} tools` : `${MAX_TOOL_PAGES} pages of tools`}; its tools are left out`,
        );
      }
    }
  }

  async ping(options: McpRequestOptions): Promise<void> {
    await this.withoutCredential(classified(this.client.ping(requestOptions(options)), options));
  }

  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult> {
    // The call's trace goes on at the server: its context in the request's `_meta` (W3C `traceparent`), when traced, beside the caller's own.
    const meta = { ...traceCarrier(), ...options.meta };
    const request = { name, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
    const hooks: McpCallHooks = { ...options };
    this.calls.add(hooks);
    try {
      const answer = options.asTask
        ? // Created as a task, its status polled (tasks/get) and its result fetched (tasks/result) by the SDK.
          takeResult(this.client.experimental.tasks.callToolStream(request, CallToolResultSchema, { ...callOptions(options), task: {} }))
        : this.client.callTool(request, undefined, callOptions(options));
      return toResult((await this.withoutCredential(classified(answer, options))) as CallToolResult);
    } finally {
      this.calls.delete(hooks);
    }
  }

  private async withoutCredential<T>(answer: Promise<T>): Promise<T> {
    try {
      return redactStrings(await answer, [this.credential()]);
    } catch (error) {
      throw redactError(await this.explain(error), [this.credential()]);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * MCP sessions through the official SDK `Client`: Streamable HTTP at `url + mcp_endpoint`, falling
 * back to HTTP+SSE when the server does not speak it; stdio by spawning `command args` with a
 * minimal environment (the SDK's safe defaults, plus the server's own credential when it has one).
 * TLS certificates are always verified (Node's defaults are never relaxed). Over HTTP, a server
 * whose address was not set by a superuser reaches only what the outbound policy allows, and
 * redirects to another origin are not followed.
 */
export class SdkMcpConnector implements McpConnector, McpSignIn {
  constructor(private readonly options: SdkConnectorOptions) {}

  async connect(server: McpServerTarget, credential: string | undefined, options: McpRequestOptions, user?: string): Promise<McpSession> {
    const provider = this.authProvider(server, credential, user);
    const explain = async (error: unknown): Promise<unknown> => {
      const cause = error instanceof McpSessionLostError ? error.cause : error;
      if (!(cause instanceof UnauthorizedError && provider instanceof StoredOAuthProvider && provider.authorizationUrl)) return error;
      const url = provider.authorizationUrl;
      provider.authorizationUrl = undefined;
      return new McpConnectRequiredError(server.id, server.name, await this.allowedSignIn(server, url));
    };
    try {
      return await this.connectWith(server, credential, options, provider, explain);
    } catch (error) {
      throw redactError(httpStatusError(await explain(error)), [
        credential,
        provider instanceof StoredOAuthProvider ? provider.secret : undefined,
      ]);
    }
  }

  /**
   * A sign-in URL for `user` whatever tokens they hold: the SDK's own flow, from the server's
   * challenge (its protected resource metadata and the scopes it asks for) to the authorization
   * URL with PKCE and a state bound to the user.
   */
  async begin(server: McpServerTarget, credential: string | undefined, user: string, options: McpRequestOptions): Promise<string> {
    const provider = this.userProvider(server, credential, user, { fresh: true });
    try {
      const session = await this.connectWith(server, credential, options, provider, async (error) => error);
      await session.close();
    } catch (error) {
      if (error instanceof UnauthorizedError && provider.authorizationUrl) return this.allowedSignIn(server, provider.authorizationUrl);
      throw new UpstreamError(`the sign-in to ${server.name} could not start: ${(error as Error).message}`);
    }
    throw new ConflictError(`${server.name} asked for no authorization: there is no account to connect`);
  }

  /** The code the user came back with, exchanged by the SDK for their tokens (stored by the provider). */
  async finish(
    server: McpServerTarget,
    credential: string | undefined,
    user: string,
    sign: { code: string; verifier: string },
  ): Promise<void> {
    const provider = this.userProvider(server, credential, user, { verifier: sign.verifier });
    const serverUrl = new URL(mcpEndpointUrl(server));
    const discovered = await provider.discoveryState();
    try {
      await auth(provider, {
        serverUrl,
        authorizationCode: sign.code,
        ...(discovered?.resourceMetadataUrl ? { resourceMetadataUrl: new URL(discovered.resourceMetadataUrl) } : {}),
        fetchFn: serverScopedFetch(this.options.outbound, serverUrl, server.destination_trusted === true),
      });
    } catch (error) {
      throw new UpstreamError(`the authorization server of ${server.name} refused the sign-in: ${(error as Error).message}`);
    }
  }

  /** The authorization endpoint obeys the outbound policy as the server's own address does (the user's browser is sent there). */
  private async allowedSignIn(server: McpServerTarget, authorizationUrl: URL): Promise<string> {
    const own = authorizationUrl.origin === new URL(mcpEndpointUrl(server)).origin && server.destination_trusted === true;
    if (!own && (await this.oauth().policy.refusesUrl(authorizationUrl.href))) {
      throw new UpstreamError(`the authorization endpoint of ${server.name} is an internal address the outbound policy refuses`);
    }
    return authorizationUrl.href;
  }

  private oauth(): NonNullable<SdkConnectorOptions['oauth']> {
    if (!this.options.oauth)
      throw new ConflictError('OAuth MCP servers are not enabled: the operator sets PLATFORM_TOKEN_KEY (and PUBLIC_URL)');
    return this.options.oauth;
  }

  /** The SDK's provider for an OAuth server: one service account (client credentials) or the user's own tokens. */
  private authProvider(server: McpServerTarget, credential: string | undefined, user: string | undefined): OAuthClientProvider | undefined {
    if (server.auth !== 'oauth' || server.protocol !== 'http') return undefined;
    if (server.oauth_grant === 'client_credentials') {
      return new ClientCredentialsProvider({
        clientId: server.oauth_client_id ?? '',
        clientSecret: credential ?? '',
        clientName: this.options.clientName,
      });
    }
    if (user === undefined) throw new ConflictError(`${server.name} is reached with each user's own account: no user was given`);
    return this.userProvider(server, credential, user);
  }

  private userProvider(
    server: McpServerTarget,
    credential: string | undefined,
    user: string,
    mode?: ConstructorParameters<typeof StoredOAuthProvider>[2],
  ): StoredOAuthProvider {
    return new StoredOAuthProvider(
      this.oauth(),
      {
        serverId: server.id,
        url: mcpEndpointUrl(server),
        userId: user,
        ...(server.oauth_client_id ? { client: { id: server.oauth_client_id, secret: credential } } : {}),
      },
      mode,
    );
  }

  private async connectWith(
    server: McpServerTarget,
    credential: string | undefined,
    options: McpRequestOptions,
    authProvider: OAuthClientProvider | undefined,
    explain: (error: unknown) => Promise<unknown>,
  ): Promise<McpSession> {
    if (server.protocol === 'stdio') {
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        env: { ...getDefaultEnvironment(), ...(credential ? { [STDIO_CREDENTIAL_VARIABLE]: credential } : {}) },
        stderr: 'ignore',
      });
      return this.open(transport, 'stdio', server, () => credential, options, explain);
    }
    const url = new URL(mcpEndpointUrl(server));
    // With OAuth the secret is its client's, for the authorization server only; the provider sends the tokens.
    const bearer = authProvider ? undefined : credential;
    const requestInit: RequestInit = { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} };
    const fetch = cappedFetch(serverScopedFetch(this.options.outbound, url, server.destination_trusted === true));
    const transportOptions = { requestInit, fetch, ...(authProvider ? { authProvider } : {}) };
    const secret = () => (authProvider instanceof StoredOAuthProvider ? authProvider.secret : bearer);
    try {
      return await this.open(new StreamableHTTPClientTransport(url, transportOptions), 'streamable-http', server, secret, options, explain);
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code !== undefined && NOT_STREAMABLE.has(error.code))) throw error;
      // The SDK sends requestInit's headers on the SSE stream's GET too.
      return this.open(new SSEClientTransport(url, transportOptions), 'sse', server, secret, options, explain);
    }
  }

  private async open(
    transport: Transport,
    kind: McpSession['transport'],
    server: McpServerTarget,
    credential: () => string | undefined,
    options: McpRequestOptions,
    explain: (error: unknown) => Promise<unknown>,
  ): Promise<McpSession> {
    const client = new Client(
      { name: this.options.clientName, version: this.options.clientVersion },
      { capabilities: CLIENT_CAPABILITIES },
    );
    const calls = new Set<McpCallHooks>();
    answerServerRequests(client, calls);
    // The service shares no file system with a server: it names only the roots its record lists (none by default).
    const roots = (server.roots ?? []).map(({ uri, name }) => ({ uri, ...(name ? { name } : {}) }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    try {
      await client.connect(transport, requestOptions(options));
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return new SdkSession(client, kind, credential, calls, explain);
  }
}

/** The one call in flight with `hook`: a server's request reaches no call when several might have sent it. */
function soleCaller<K extends 'elicit' | 'sample'>(calls: Set<McpCallHooks>, hook: K): McpCallHooks[K] {
  const callers = [...calls].filter((call) => call[hook] !== undefined);
  return callers.length === 1 ? callers[0]![hook] : undefined;
}

/** Questions to the user and completions a server asks for during a tool call, passed to that call's hooks. */
function answerServerRequests(client: Client, calls: Set<McpCallHooks>): void {
  client.setRequestHandler(ElicitRequestSchema, async ({ params }, extra): Promise<ElicitResult> => {
    const elicit = soleCaller(calls, 'elicit');
    if (!elicit) return { action: 'cancel' };
    // A person is sent only to a web address.
    if (params.mode === 'url' && !/^https?:$/.test(URL.canParse(params.url) ? new URL(params.url).protocol : ''))
      return { action: 'decline' };
    const question =
      params.mode === 'url'
        ? { mode: 'url' as const, message: params.message, url: params.url, elicitationId: params.elicitationId }
        : { mode: 'form' as const, message: params.message, requestedSchema: params.requestedSchema as Record<string, unknown> };
    return { ...(await elicit(question, extra.signal)) };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async ({ params }, extra): Promise<CreateMessageResult> => {
    const sample = soleCaller(calls, 'sample');
    if (!sample) throw new McpError(USER_REJECTED, 'sampling is not allowed for this server');
    const messages = params.messages.map(({ role, content }) => ({
      role,
      text: (Array.isArray(content) ? content : [content])
        .map((part) => (part.type === 'text' ? part.text : `[${part.type} content]`))
        .join('\n'),
    }));
    const answer = await sample(
      { messages, ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}), maxTokens: params.maxTokens },
      extra.signal,
    );
    return { role: 'assistant', content: { type: 'text', text: answer.text }, model: answer.model, stopReason: 'endTurn' };
  });
}
