import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { OPERATOR_WRITER } from '../knowledge/repository-admission.js';
import { createServer } from './server.js';
import type { ToolDeps } from './tools/index.js';
import type { HostConnection, WriteConfirmation } from './write-confirmation.js';

/** Serves MCP over stdin/stdout until the client closes the pipe. Logs never touch stdout. Writes are confirmed as `gate` says. */
export async function serveStdio(deps: ToolDeps, version: string, gate: WriteConfirmation): Promise<void> {
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
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  deps.logger.info('mcp server listening on stdio');
  await closed;
  await cleanup();
}
