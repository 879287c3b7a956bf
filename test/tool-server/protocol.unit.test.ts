import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildPlatformToolServer, openToolServerWrites, type PlatformToolServer } from '../../src/roles/mcp.js';
import { RESOURCE_PAGE_SIZE } from '../../src/tool-server/resources.js';
import { createServer } from '../../src/tool-server/server.js';
import { serveStdio } from '../../src/tool-server/stdio.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';

describe("The tool server keeps the protocol's MUSTs", () => {
  let platform: StubPlatform;
  let dir: string;
  let runtime: PlatformToolServer;

  before(async () => {
    platform = await startStubPlatform(fixture('nautobot-openapi.json'));
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-protocol-'));
    runtime = await buildPlatformToolServer(
      loadConfig({ PLATFORM_URL_LOCAL: platform.url, PLATFORM_TOKEN: 'nbtoken-0123456789abcdef', EMBEDDING_MODEL: 'none', DATA_DIR: dir }),
      silentLogger(),
    );
  });
  after(async () => {
    await runtime.close();
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function connected(): Promise<{ client: Client; close: () => Promise<void> }> {
    const { server, cleanup } = createServer(runtime.deps, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'host', version: '1' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    return { client, close: async () => (await client.close(), await cleanup()) };
  }

  it('answers an unknown tool with the JSON-RPC error -32602, not a tool result', async () => {
    const { client, close } = await connected();
    try {
      const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(McpError);
      expect((error as McpError).code).to.equal(ErrorCode.InvalidParams);
      expect((error as McpError).message).to.include('no_such_tool');
    } finally {
      await close();
    }
  });

  it('advertises no tools.listChanged: the tools never change while it runs', async () => {
    const { client, close } = await connected();
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).to.not.equal(true);
    } finally {
      await close();
    }
  });

  it("serves the API's operations as resources: paged lists, a template, and each read as its schema", async () => {
    const { client, close } = await connected();
    try {
      expect(client.getServerCapabilities()?.resources?.listChanged).to.not.equal(true);
      const uris: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listResources(cursor ? { cursor } : {});
        expect(page.resources.length).to.be.within(1, RESOURCE_PAGE_SIZE);
        uris.push(...page.resources.map((resource) => resource.uri));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).to.be.greaterThan(1);
      expect(new Set(uris).size).to.equal(uris.length);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).to.include('openapi://operations/{operationId}');
      const create = uris.find((uri) => uri === 'openapi://operations/ipam_vlans_create')!;
      expect(create, 'the VLAN create operation is listed').to.be.a('string');
      const read = await client.readResource({ uri: create });
      const schema = JSON.parse((read.contents[0] as { text: string }).text) as { method: string; path: string };
      expect(schema).to.include({ method: 'POST', path: '/api/ipam/vlans/' });
      const bad = await client.listResources({ cursor: 'not-a-cursor' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((bad as McpError).code).to.equal(ErrorCode.InvalidParams);
    } finally {
      await close();
    }
  });

  it('answers a stdio line that is not JSON with -32700, and one that is not JSON-RPC with -32600, then goes on', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let buffered = '';
    stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, at)) as Record<string, unknown>);
        buffered = buffered.slice(at + 1);
      }
    });
    const writes = openToolServerWrites(loadConfig({}), runtime.deps, silentLogger());
    const served = serveStdio(runtime.deps, 'test', writes.gate, { stdin, stdout });
    const answered = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (lines.length >= count ? resolve() : setImmediate(check));
        check();
      });
    stdin.write('this is not json\n');
    await answered(1);
    stdin.write('{"hello": "world"}\n');
    await answered(2);
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await answered(3);
    stdin.end();
    await served;
    expect(lines[0]).to.deep.include({ jsonrpc: '2.0', id: null });
    expect(lines[0]!.error).to.include({ code: -32700 });
    expect(lines[1]!.error).to.include({ code: -32600 });
    expect(lines[2]).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
