import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, type ContentBlock, ErrorCode, ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  type McpCallResult,
  type McpConnector,
  type McpContent,
  mcpEndpointUrl,
  McpHttpStatusError,
  type McpRequestOptions,
  type McpServerTarget,
  type McpSession,
  McpSessionLostError,
  type McpTool,
} from '../mcp-connector.port.js';
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
}

/** The most bytes of one answer of a server over HTTP (a tool result, a page of tools): a model sees a few thousand characters of a result. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** `fetch` whose answers to requests (POST) stop at MAX_RESPONSE_BYTES; the long-lived event stream (GET) is left whole. */
function cappedFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET').toUpperCase() === 'GET') return response;
    return cappedResponse(response, MAX_RESPONSE_BYTES, () => new Error(`the MCP server answered more than ${MAX_RESPONSE_BYTES} bytes`));
  };
}

/** The most pages and tools of one server's list: every turn offers every tool to the model. */
const MAX_TOOL_PAGES = 20;
const MAX_TOOLS = 1_000;

function requestOptions({ signal, timeoutMs }: McpRequestOptions) {
  return { timeout: timeoutMs, maxTotalTimeout: timeoutMs, ...(signal ? { signal } : {}) };
}

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
    private readonly credential: string | undefined,
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
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          description: tool.description ?? '',
          inputSchema: tool.inputSchema,
          ...(tool.annotations?.readOnlyHint === undefined ? {} : { readOnlyHint: tool.annotations.readOnlyHint }),
        });
      }
      cursor = page.nextCursor;
      if (!cursor) return tools;
      if (tools.length > MAX_TOOLS || pages >= MAX_TOOL_PAGES) {
        throw new Error(
          `the server lists more than ${tools.length > MAX_TOOLS ? `${MAX_TOOLS} tools` : `${MAX_TOOL_PAGES} pages of tools`}; its tools are left out`,
        );
      }
    }
  }

  async ping(options: McpRequestOptions): Promise<void> {
    await this.withoutCredential(classified(this.client.ping(requestOptions(options)), options));
  }

  async callTool(name: string, args: Record<string, unknown>, options: McpRequestOptions): Promise<McpCallResult> {
    // The call's trace goes on at the server: its context in the request's `_meta` (W3C `traceparent`), when traced.
    const trace = traceCarrier();
    const request = { name, arguments: args, ...(Object.keys(trace).length > 0 ? { _meta: trace } : {}) };
    return toResult(
      (await this.withoutCredential(
        classified(this.client.callTool(request, undefined, requestOptions(options)), options),
      )) as CallToolResult,
    );
  }

  private async withoutCredential<T>(answer: Promise<T>): Promise<T> {
    try {
      return redactStrings(await answer, [this.credential]);
    } catch (error) {
      throw redactError(error, [this.credential]);
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
export class SdkMcpConnector implements McpConnector {
  constructor(private readonly options: SdkConnectorOptions) {}

  async connect(server: McpServerTarget, credential: string | undefined, options: McpRequestOptions): Promise<McpSession> {
    try {
      return await this.connectWith(server, credential, options);
    } catch (error) {
      throw redactError(httpStatusError(error), [credential]);
    }
  }

  private async connectWith(server: McpServerTarget, credential: string | undefined, options: McpRequestOptions): Promise<McpSession> {
    if (server.protocol === 'stdio') {
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        env: { ...getDefaultEnvironment(), ...(credential ? { [STDIO_CREDENTIAL_VARIABLE]: credential } : {}) },
        stderr: 'ignore',
      });
      return this.open(transport, 'stdio', server, credential, options);
    }
    const url = new URL(mcpEndpointUrl(server));
    const requestInit: RequestInit = { headers: credential ? { authorization: `Bearer ${credential}` } : {} };
    const fetch = cappedFetch(this.options.outbound(server.destination_trusted === true));
    try {
      return await this.open(
        new StreamableHTTPClientTransport(url, { requestInit, fetch }),
        'streamable-http',
        server,
        credential,
        options,
      );
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code !== undefined && NOT_STREAMABLE.has(error.code))) throw error;
      // The SDK sends requestInit's headers on the SSE stream's GET too.
      return this.open(new SSEClientTransport(url, { requestInit, fetch }), 'sse', server, credential, options);
    }
  }

  private async open(
    transport: Transport,
    kind: McpSession['transport'],
    server: McpServerTarget,
    credential: string | undefined,
    options: McpRequestOptions,
  ): Promise<McpSession> {
    const client = new Client({ name: this.options.clientName, version: this.options.clientVersion }, { capabilities: { roots: {} } });
    // The service shares no file system with a server: it names only the roots its record lists (none by default).
    const roots = (server.roots ?? []).map(({ uri, name }) => ({ uri, ...(name ? { name } : {}) }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    try {
      await client.connect(transport, requestOptions(options));
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return new SdkSession(client, kind, credential);
  }
}
