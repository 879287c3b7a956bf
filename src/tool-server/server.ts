import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { callerContext, inSpan, SpanKind } from '../kernel/tracing/tracing.js';
import { registerResources } from './resources.js';
import { SERVER_NAME } from './server-name.js';
import { registerTools, type ToolCall, type ToolDeps } from './tools/index.js';

type CallToolHandler = (request: CallToolRequest, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => Promise<unknown>;

/**
 * Each call of the tool in a server span that goes on with the caller's trace when callers are
 * trusted: the context its request's `_meta` carries (W3C `traceparent`), or the active one in
 * process (the built-in tools). An untrusted caller's context is only a link (see callerContext).
 * The span names the tool and how it ended, never its arguments or result.
 */
const traced =
  (trustCallers: boolean) =>
  (tool: string, call: ToolCall): ToolCall =>
  async (args, extra) => {
    const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool };
    const caller = callerContext(extra._meta ?? {}, trustCallers);
    return inSpan(`tools/call ${tool}`, { kind: SpanKind.SERVER, attributes, ...caller }, async (span) => {
      const result = await call(args, extra);
      span.setAttribute('aiops.tool.outcome', result.isError ? 'error' : 'ok');
      return result;
    });
  };

/**
 * An unknown tool is a protocol error (-32602, as the spec has it), not a tool result: the SDK's
 * McpServer answers every failure of a call, that one included, as a tool result. Wraps the call
 * handler McpServer installs, as it installs it (at the first registration).
 */
function refuseUnknownTools(server: Server, known: ReadonlySet<string>): void {
  const install = server.setRequestHandler.bind(server);
  server.setRequestHandler = ((schema: typeof CallToolRequestSchema, handler: CallToolHandler) => {
    if (schema !== CallToolRequestSchema) return install(schema, handler as never);
    return install(schema, (request, extra) => {
      if (!known.has(request.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      return handler(request, extra) as never;
    });
  }) as Server['setRequestHandler'];
}

/**
 * A tool server for one connection. The index and client in `deps` are shared, so building a
 * server per connection (or per stateless HTTP request) costs only the registrations.
 * `trustCallers`: whether a call's trace context is its span's parent (in process, or
 * OTEL_TRUSTED_PROPAGATION over HTTP).
 */
export function createServer(deps: ToolDeps, version: string, trustCallers = true): { server: McpServer; cleanup: () => Promise<void> } {
  // No capabilities given here: McpServer would install its tool handlers at once, before refuseUnknownTools can wrap them.
  const server = new McpServer({ name: SERVER_NAME, version });
  const known = new Set<string>();
  refuseUnknownTools(server.server, known);
  for (const name of registerTools(server, deps, traced(trustCallers))) known.add(name);
  registerResources(server, deps);
  // Neither tools nor resources change while a server runs (and stateless HTTP could not say so):
  // McpServer's `listChanged: true` would promise notifications that never come.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return { server, cleanup: () => server.close() };
}
