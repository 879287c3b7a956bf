import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { OPERATOR_WRITER } from '../knowledge/repository-admission.js';
import { createServer } from './server.js';
import type { ToolDeps } from './tools/index.js';

/** Serves MCP over stdin/stdout until the client closes the pipe. Logs never touch stdout. */
export async function serveStdio(deps: ToolDeps, version: string): Promise<void> {
  // Its client is the process that started it, with the operator's rights over this configuration.
  const { server, cleanup } = createServer({ ...deps, writer: OPERATOR_WRITER }, version);
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
