import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { callerCheck } from '../../src/tool-server/caller-check.js';
import { serveHttp, type McpHttpServer } from '../../src/tool-server/http.js';
import { buildPlatformToolServer, openToolServerWrites, type PlatformToolServer } from '../../src/roles/mcp.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';
import { sendRaw } from '../support/http.js';
import { aiopsMcpOverStdio, startAiops } from '../support/processes.js';

const HTTP_TOKEN = 'transport-test-token-0123456789';
const AUTHORIZED = { authorization: `Bearer ${HTTP_TOKEN}` };

describe('MCP transports', () => {
  let platform: StubPlatform;
  let dir: string;
  before(async () => {
    platform = await startStubPlatform(fixture('netbox-openapi.json'));
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-mcp-transport-'));
  });
  after(async () => {
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers over stdio from a spawned `aiops mcp`, logs on stderr only, serves its metrics on METRICS_PORT', async () => {
    const stderr: string[] = [];
    const metricsPort = await freePort();
    const transport = aiopsMcpOverStdio(
      {
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: 'stdio-token-xyz',
        EMBEDDING_MODEL: 'none',
        DATA_DIR: dir,
        LOG_LEVEL: 'info',
        METRICS_PORT: String(metricsPort),
      },
      { stderr: 'pipe' },
    );
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: 'platform_openapi_api_request_schema',
        arguments: { query: 'decommission a firewall' },
      })) as CallToolResult;
      expect((result.structuredContent as { results: Array<{ method: string; path: string }> }).results[0]).to.include({
        method: 'DELETE',
        path: '/api/dcim/devices/{id}/',
      });
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).to.equal(200);
      expect(await metrics.text()).to.match(/aiops_search_duration_seconds_count\{index="endpoints"\} 1/);
    } finally {
      await client.close();
    }
    const lines = stderr.join('').trim().split('\n').filter(Boolean);
    expect(lines.length).to.be.greaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).to.not.throw();
    expect(stderr.join('')).to.not.include('stdio-token-xyz');
  });

  it('`aiops mcp --http` answers only the Host names of MCP_ALLOWED_HOSTS', async () => {
    const server = startAiops(['mcp', '--http', '0'], {
      PLATFORM_URL_LOCAL: platform.url,
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      MCP_ALLOWED_HOSTS: 'mcp.example,localhost',
      MCP_HTTP_TOKEN: HTTP_TOKEN,
    });
    try {
      const { port } = JSON.parse(await server.waitForLine(/"mcp server listening on http"/, 60_000)) as { port: number };
      const asked = (host: string) => sendRaw(`http://127.0.0.1:${port}/health`, 'GET', { headers: { host } });
      expect((await asked(`mcp.example:${port}`)).status).to.equal(200);
      expect((await asked(`localhost:${port}`)).status).to.equal(200);
      // Loopback addresses pass by default; the configured list is what counts.
      const refused = await asked(`127.0.0.1:${port}`);
      expect(refused.status).to.equal(403);
      expect(refused.text).to.include('Invalid Host');
    } finally {
      await server.stop();
    }
  });

  describe('Streamable HTTP', () => {
    let runtime: PlatformToolServer;
    let http: McpHttpServer;
    before(async () => {
      const config = loadConfig({ PLATFORM_URL_LOCAL: platform.url, EMBEDDING_MODEL: 'none', DATA_DIR: dir });
      runtime = await buildPlatformToolServer(config, silentLogger());
      http = await serveHttp(runtime.deps, 'test', {
        host: '127.0.0.1',
        port: 0,
        callers: callerCheck({ staticToken: HTTP_TOKEN }),
        writes: openToolServerWrites(config, runtime.deps, silentLogger()),
      });
      void runtime.deps.index.start();
    });
    after(async () => {
      await http.close();
      await runtime.close();
    });

    it('serves the tools at /mcp statelessly', async () => {
      for (let round = 0; round < 2; round++) {
        const client = new Client({ name: 'test', version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/mcp`), { requestInit: { headers: AUTHORIZED } }),
        );
        const result = (await client.callTool({
          name: 'platform_openapi_api_request_schema',
          arguments: { query: 'list all cabinets', n_results: 1 },
        })) as CallToolResult;
        expect((result.structuredContent as { results: Array<{ path: string }> }).results[0]!.path).to.equal('/api/dcim/racks/');
        await client.close();
      }
    });

    it('reports the index state on /health and answers 405 to GET /mcp', async () => {
      await runtime.deps.index.start();
      const health = await fetch(`http://127.0.0.1:${http.port}/health`);
      expect(health.status).to.equal(200);
      const body = (await health.json()) as { status: string; index: { status: string; endpoints: number; mode: string } };
      expect(body.index).to.include({ status: 'ready', endpoints: 1124, mode: 'lexical' });
      expect((await fetch(`http://127.0.0.1:${http.port}/mcp`, { headers: AUTHORIZED })).status).to.equal(405);
    });
  });
});
