import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { OPERATOR_WRITER } from '../knowledge/repository-admission.js';
import { createServer } from './server.js';
import type { ToolDeps } from './tools/index.js';
import type { HostConnection, WriteConfirmation } from './write-confirmation.js';

/**
 * A line that is not JSON (-32700), or JSON that is no JSON-RPC message (-32600), is answered with
 * the protocol's error: the SDK's transport only reports it to `onerror`, and the client would wait
 * for an answer that never comes. Its id cannot be known, so it is null (JSON-RPC 2.0).
 */
export function answerUnreadableLines(transport: StdioServerTransport): void {
  transport.onerror = (error) => {
    const code = error instanceof SyntaxError ? ErrorCode.ParseError : error.name === 'ZodError' ? ErrorCode.InvalidRequest : undefined;
    if (code === undefined) return;
    const message = code === ErrorCode.ParseError ? 'Parse error: the line is not valid JSON' : 'Invalid request: not a JSON-RPC message';
    void transport.send({ jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage);
  };
}

/** Serves MCP over stdin/stdout until the client closes the pipe. Logs never touch stdout. Writes are confirmed as `gate` says. */
export async function serveStdio(
  deps: ToolDeps,
  version: string,
  gate: WriteConfirmation,
  streams: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<void> {
  // Its client is the process that started it, with the operator's rights over this configuration.
  const host: HostConnection = {
    caller: 'operator',
    user: 'operator (stdio)',
    superuser: true,
    declared: () => ({
      client: server.server.getClientVersion()?.name ?? null,
      elicitation: Boolean(server.server.getClientCapabilities()?.elicitation?.form),
      session: null,
    }),
  };
  const { server, cleanup } = createServer({ ...deps, writer: OPERATOR_WRITER, writes: { gate, host } }, version);
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  answerUnreadableLines(transport);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    streams.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  deps.logger.info('mcp server listening on stdio');
  await closed;
  await cleanup();
}
