/**
 * A fixture MCP server over stdio: `node --import tsx stdio-fixture.ts LABEL [--prefixed] [--exit]`.
 * `--exit` quits before answering (a broken server); `--prefixed` prefixes tool names with LABEL. The
 * tool `whoami` answers the SHA-256 of the credential it found in MCP_AUTH_TOKEN (the client
 * redacts the credential itself from whatever a server says) and which variables it got.
 */
import { createHash } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildFixtureServer } from './fixture-tools.js';

const [label = 'stdio', ...flags] = process.argv.slice(2);

if (flags.includes('--exit')) process.exit(3);
const server = buildFixtureServer({ label, prefix: flags.includes('--prefixed') ? `${label}_` : '' });
server.registerTool('whoami', { description: 'Reports the credential and environment it was started with.' }, async () => ({
  content: [
    {
      type: 'text',
      text: JSON.stringify({
        credential: process.env.MCP_AUTH_TOKEN === undefined ? null : createHash('sha256').update(process.env.MCP_AUTH_TOKEN).digest('hex'),
        variables: Object.keys(process.env).sort(),
      }),
    },
  ],
}));
await server.connect(new StdioServerTransport());
