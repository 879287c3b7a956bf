import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** What a fixture server offers: a device lookup (with its own server name), and tools that are slow, fail or answer a lot. */
export interface FixtureToolOptions {
  /** Names the server in its answers, so a test can tell which one answered. */
  label: string;
  /** Registers the tools under `<prefix>...` names (default: none). */
  prefix?: string;
  /** Lists its tools a page at a time and never reaches the last page (a broken or hostile server). */
  endlessToolPages?: boolean;
}

/** A fresh MCP server (the SDK's McpServer) with the fixture tools. */
export function buildFixtureServer({ label, prefix = '', endlessToolPages = false }: FixtureToolOptions): McpServer {
  const server = new McpServer({ name: `fixture-${label}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    `${prefix}lookup_device`,
    {
      description: 'Finds a device by name and says where it is.',
      inputSchema: { name: z.string().describe('Device name') },
      annotations: { readOnlyHint: true },
    },
    async ({ name }) => ({ content: [{ type: 'text', text: `${label}: device ${name} is in ams, rack 4` }] }),
  );
  server.registerTool(
    `${prefix}site_status`,
    {
      description: 'Status of a site, as JSON.',
      inputSchema: { site: z.string() },
      outputSchema: { site: z.string(), up: z.boolean(), server: z.string() },
    },
    async ({ site }) => {
      const structured = { site, up: true, server: label };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );
  server.registerTool(
    `${prefix}slow_tool`,
    { description: 'Answers after `ms` milliseconds.', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: `${label}: slept ${ms} ms` }] };
    },
  );
  server.registerTool(
    `${prefix}failing_tool`,
    { description: 'Always fails.', inputSchema: { reason: z.string().optional() } },
    async ({ reason }) => {
      throw new Error(`${label}: the inventory backend is down${reason ? ` (${reason})` : ''}`);
    },
  );
  server.registerTool(
    `${prefix}big_output`,
    { description: 'Answers `chars` characters.', inputSchema: { chars: z.number().int().min(1) } },
    async ({ chars }) => ({
      content: [{ type: 'text', text: 'x'.repeat(chars) }],
    }),
  );
  if (endlessToolPages) {
    server.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const page = Number(request.params?.cursor ?? 0);
      return {
        tools: [{ name: `page_${page}`, description: 'One of endless pages.', inputSchema: { type: 'object' as const } }],
        nextCursor: String(page + 1),
      };
    });
  }
  return server;
}
