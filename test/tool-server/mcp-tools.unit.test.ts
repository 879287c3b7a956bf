import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { z } from 'zod';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildPlatformToolServer, type PlatformToolServer } from '../../src/roles/mcp.js';
import { BuiltinPlatformTools } from '../../src/tool-server/builtin-tools.adapter.js';
import { createServer } from '../../src/tool-server/server.js';
import { PLATFORM_TOOLS, toolName } from '../../src/tool-server/tools/index.js';
import { ApiRequestOutput } from '../../src/tool-server/tools/dynamic-api-request.js';
import { EndpointSearchOutput } from '../../src/tool-server/tools/openapi-api-request-schema.js';
import { EndpointSchemaOutput } from '../../src/tool-server/tools/openapi-endpoint-schema.js';
import { RefreshOutput } from '../../src/tool-server/tools/refresh-endpoint-index.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';

const TOKEN = 'nbtoken-0123456789abcdef';

describe('MCP tools (in memory)', () => {
  let platform: StubPlatform;
  let dir: string;
  let runtime: PlatformToolServer;
  let client: Client;
  let close: () => Promise<void>;

  async function connect(env: Record<string, string> = {}) {
    runtime = await buildPlatformToolServer(
      loadConfig({
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: TOKEN,
        EMBEDDING_MODEL: 'none',
        PLATFORM_INDEX_WAIT_MS: '10000',
        DATA_DIR: dir,
        ...env,
      }),
      silentLogger(),
    );
    const { server, cleanup } = createServer(runtime.deps, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test', version: '1' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    close = async () => {
      await client.close();
      await cleanup();
      await runtime.close();
    };
  }

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const errorBody = (result: CallToolResult) =>
    JSON.parse((result.content[0] as { text: string }).text) as { status: string; error: string; details: Record<string, unknown> };

  before(async () => {
    platform = await startStubPlatform(fixture('nautobot-openapi.json'));
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-mcp-'));
  });
  after(async () => {
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => connect());
  afterEach(() => close());

  it('lists the ten seed tools and the endpoint schema tool by name with honest annotations', async () => {
    const { tools } = await client.listTools();
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    const hints = (readOnlyHint: boolean, destructiveHint: boolean, idempotentHint: boolean, openWorldHint: boolean) => ({
      readOnlyHint,
      destructiveHint,
      idempotentHint,
      openWorldHint,
    });
    // The names are the contract agents are configured with: renaming any tool must fail here.
    expect(annotations).to.deep.equal({
      platform_openapi_api_request_schema: hints(true, false, true, false),
      platform_openapi_endpoint_schema: hints(true, false, true, false),
      platform_dynamic_api_request: hints(false, true, false, true),
      refresh_endpoint_index: hints(false, false, true, false),
      platform_kb_semantic_search: hints(true, false, true, false),
      platform_kb_list_repos: hints(true, false, true, false),
      platform_kb_add_repo: hints(false, false, false, true),
      platform_kb_remove_repo: hints(false, true, true, false),
      platform_kb_update_repos: hints(false, false, true, true),
      platform_kb_init_repos: hints(false, false, true, true),
      platform_kb_repo_status: hints(true, false, true, false),
    });
  });

  it('offers every registered tool to chat turns or says why not', async () => {
    const { tools } = await client.listTools();
    const definition = (name: string) => PLATFORM_TOOLS.find((tool) => toolName(tool, runtime.deps.toolPrefix) === name);
    // Each tool's answer: offered, or the reason it gives (shown whole when one says nothing).
    const answers: Record<string, string> = Object.fromEntries(
      tools.map(({ name }) => {
        const chat = definition(name)?.chat;
        return [name, chat?.offered ? 'offered' : (chat?.because ?? '')];
      }),
    );
    const silent = Object.keys(answers).filter((name) => answers[name] !== 'offered' && answers[name]!.split(' ').length < 4);
    expect(silent, JSON.stringify(answers, null, 2)).to.deep.equal([]);
    const builtin = new BuiltinPlatformTools({ deps: runtime.deps, version: 'test', platformIsSelf: false });
    const offered = (await builtin.list({ userId: 'someone', signal: new AbortController().signal })).map(({ name }) => name);
    expect(offered).to.deep.equal(Object.keys(answers).filter((name) => answers[name] === 'offered'));
    // Which tools chat gets is behaviour: changing it must fail here.
    expect(offered).to.deep.equal([
      'platform_openapi_api_request_schema',
      'platform_openapi_endpoint_schema',
      'platform_dynamic_api_request',
      'platform_kb_semantic_search',
    ]);
  });

  it('finds endpoints with real request paths, structured like the declared output schema', async () => {
    const result = await call('platform_openapi_api_request_schema', { query: 'add a new router', n_results: 3 });
    expect(result.isError).to.not.equal(true);
    const structured = z.object(EndpointSearchOutput).parse(result.structuredContent);
    expect(structured.results).to.have.length(3);
    expect(structured.results[0]).to.include({ method: 'POST', path: '/api/dcim/devices/' });
    expect(structured.search_mode).to.equal('lexical');
    expect(JSON.parse((result.content[0] as { text: string }).text)).to.deep.equal(result.structuredContent);
  });

  it('puts the required body fields on write hits and the main filters on list hits', async () => {
    const create = z
      .object(EndpointSearchOutput)
      .parse((await call('platform_openapi_api_request_schema', { query: 'create a VLAN', n_results: 1 })).structuredContent);
    expect(create.results[0]).to.deep.include({ method: 'POST', path: '/api/ipam/vlans/', required_fields: ['name', 'status', 'vid'] });
    expect(create.results[0]!.description).to.match(/^create a vlan/);
    const list = z
      .object(EndpointSearchOutput)
      .parse((await call('platform_openapi_api_request_schema', { query: 'list VLANs', n_results: 1 })).structuredContent);
    expect(list.results[0]!.filters).to.include.members(['q', 'name', 'vid', 'site']);
  });

  it('describes one endpoint compactly, structured like the declared output schema', async () => {
    const result = await call('platform_openapi_endpoint_schema', { method: 'POST', path: '/api/ipam/vlans/' });
    expect(result.isError).to.not.equal(true);
    const structured = z.object(EndpointSchemaOutput).parse(result.structuredContent);
    expect(structured.request_body!.required).to.have.members(['name', 'status', 'vid']);
    expect(structured.request_body!.fields.find((field) => field.name === 'site')).to.deep.include({ related: '/api/dcim/sites/' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).to.deep.equal(result.structuredContent);
  });

  it('answers an unknown endpoint with the closest ones', async () => {
    const result = await call('platform_openapi_endpoint_schema', { method: 'GET', path: '/api/ipam/vlan/' });
    expect(result.isError).to.equal(true);
    const body = errorBody(result);
    expect(body.error).to.match(/no operation GET \/api\/ipam\/vlan\//);
    expect((body.details.closest as Array<{ path: string }>)[0]!.path).to.equal('/api/ipam/vlans/');
  });

  it('validates input: n_results outside 1..50 is an error result', async () => {
    const result = await call('platform_openapi_api_request_schema', { query: 'devices', n_results: 500 });
    expect(result.isError).to.equal(true);
  });

  it('calls the platform with the token only in the Authorization header and reports count', async () => {
    platform.answer('GET', '/api/dcim/devices/', 200, { count: 2, next: null, previous: null, results: [{ name: 'a' }, { name: 'b' }] });
    const result = await call('platform_dynamic_api_request', {
      method: 'GET',
      path: '/api/dcim/devices/',
      params: { site: 'ams1', limit: 2 },
    });
    const structured = z.object(ApiRequestOutput).parse(result.structuredContent);
    expect(structured).to.include({ status: 200, count: 2 });
    const sent = platform.requests.at(-1)!;
    expect(sent.url).to.equal('/api/dcim/devices/?site=ams1&limit=2');
    expect(sent.headers.authorization).to.equal(`Token ${TOKEN}`);
    expect(sent.url).to.not.include(TOKEN);
  });

  it('sends bodies on writes and returns an empty 204 as null data', async () => {
    platform.answer('POST', '/api/ipam/vlans/', 201, { id: 'x', vid: 300 });
    const created = await call('platform_dynamic_api_request', {
      method: 'POST',
      path: '/api/ipam/vlans/',
      body: { vid: 300, name: 'guest' },
    });
    expect(created.structuredContent).to.deep.include({ status: 201, data: { id: 'x', vid: 300 } });
    expect(JSON.parse(platform.requests.at(-1)!.body)).to.deep.equal({ vid: 300, name: 'guest' });
    platform.answer('DELETE', '/api/ipam/vlans/x/', 204, null);
    expect(
      (await call('platform_dynamic_api_request', { method: 'DELETE', path: '/api/ipam/vlans/x/' })).structuredContent,
    ).to.deep.include({ status: 204, data: null, count: null });
  });

  it("blanks what a platform answers that is a credential: a token's key from a tokens endpoint, any field named like a secret", async () => {
    const key = '0123456789abcdef0123456789abcdef01234567';
    platform.answer('POST', '/api/users/tokens/provision/', 201, { id: 7, key, key_hint: '4567', write_enabled: true });
    const minted = await call('platform_dynamic_api_request', {
      method: 'POST',
      path: '/api/users/tokens/provision/',
      body: { username: 'u', password: 'p' },
    });
    expect(minted.structuredContent).to.deep.include({ status: 201, data: { id: 7, key: '***', key_hint: '4567', write_enabled: true } });
    expect(JSON.stringify(minted)).to.not.contain(key);
    platform.answer('GET', '/api/extras/config-contexts/3/', 200, {
      id: 3,
      key: 'site-defaults',
      data: { snmp: { community: 'public', authPassword: 'ap-1', privKey: 'pk-1', ssh_key: 'sk-1' }, max_tokens: 5 },
    });
    const read = await call('platform_dynamic_api_request', { method: 'GET', path: '/api/extras/config-contexts/3/' });
    expect(read.structuredContent).to.deep.include({
      data: {
        id: 3,
        key: 'site-defaults',
        data: { snmp: { community: 'public', authPassword: '***', privKey: '***', ssh_key: '***' }, max_tokens: 5 },
      },
    });
  });

  for (const [status, remedy] of [
    [401, /PLATFORM_TOKEN.*PLATFORM_ENV/],
    [403, /permission/i],
    [404, /path/],
    [429, /retry/],
    [500, /retry later/],
  ] as const) {
    it(`maps HTTP ${status} to an error result with a remedy and the platform's body`, async () => {
      platform.answer('GET', '/api/dcim/sites/', status, { detail: `platform says ${status}`, echoed: TOKEN });
      const result = await call('platform_dynamic_api_request', { method: 'GET', path: '/api/dcim/sites/' });
      expect(result.isError).to.equal(true);
      const body = errorBody(result);
      expect(body.status).to.equal('error');
      expect(body.details.http_status).to.equal(status);
      expect(String(body.details.remedy)).to.match(remedy);
      expect(body.details.body).to.deep.include({ detail: `platform says ${status}` });
      expect((result.content[0] as { text: string }).text).to.not.include(TOKEN);
    });
  }

  it('refuses traversal and host injection before sending anything', async () => {
    const sentBefore = platform.requests.length;
    for (const path of [
      '/api/../admin/',
      'http://evil.example/api/',
      '//evil.example/x',
      '/api/%2e%2e/x',
      '/api/x\r\nHost: evil',
      '/api\\..\\x',
    ]) {
      const result = await call('platform_dynamic_api_request', { method: 'GET', path });
      expect(result.isError, path).to.equal(true);
      expect(errorBody(result).error).to.equal('invalid request');
    }
    expect(platform.requests.length).to.equal(sentBefore);
  });

  it('refuses writes in read-only mode', async () => {
    await close();
    await connect({ PLATFORM_READ_ONLY: 'true' });
    const result = await call('platform_dynamic_api_request', { method: 'DELETE', path: '/api/dcim/devices/1/' });
    expect(result.isError).to.equal(true);
    expect(errorBody(result).error).to.match(/PLATFORM_READ_ONLY/);
  });

  it('caps large answers with a visible truncation marker', async () => {
    await close();
    await connect({ PLATFORM_MAX_RESPONSE_BYTES: '2048' });
    platform.answer('GET', '/api/extras/tags/', 200, {
      count: 500,
      results: Array.from({ length: 500 }, (_, i) => ({ name: `tag-${i}` })),
    });
    const result = await call('platform_dynamic_api_request', { method: 'GET', path: '/api/extras/tags/' });
    const structured = z.object(ApiRequestOutput).parse(result.structuredContent);
    expect(structured.truncated).to.equal(true);
    expect(String(structured.data)).to.include('[response truncated at PLATFORM_MAX_RESPONSE_BYTES]');
  });

  it('fits a long list into the answer budget and says where the rest starts', async () => {
    await close();
    await connect({ PLATFORM_ANSWER_BUDGET_CHARS: '2000' });
    const results = Array.from({ length: 100 }, (_, i) => ({
      id: i,
      name: `tag-${i}`,
      url: `http://x/api/extras/tags/${i}/`,
      description: '',
      color: 'ff0000',
    }));
    platform.answer('GET', '/api/extras/tags/', 200, {
      count: 300,
      next: 'http://x/api/extras/tags/?limit=100&offset=100',
      previous: null,
      results,
    });
    const result = await call('platform_dynamic_api_request', {
      method: 'GET',
      path: '/api/extras/tags/',
      params: { limit: 100 },
      fields: ['name'],
    });
    const structured = z.object(ApiRequestOutput).parse(result.structuredContent);
    expect(structured.count).to.equal(300);
    expect(structured.returned).to.be.within(1, 99);
    expect(structured.next_offset).to.equal(structured.returned);
    expect(structured.note).to.match(/offset=/);
    expect((structured.data as { results: unknown[] }).results[0]).to.deep.equal({ id: 0, name: 'tag-0' });
    // The Nautobot 1.3 description declares no `fields` parameter: the selection is applied here, not sent.
    expect(platform.requests.at(-1)!.url).to.equal('/api/extras/tags/?limit=100');
  });

  it('refreshes the index and reports the counts', async () => {
    const result = await call('refresh_endpoint_index', {});
    const structured = z.object(RefreshOutput).parse(result.structuredContent);
    expect(structured).to.include({ status: 'success', endpoints_indexed: 754 });
  });

  it('honours TOOL_PREFIX', async () => {
    await close();
    await connect({ TOOL_PREFIX: 'nautobot' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include.members([
      'nautobot_openapi_api_request_schema',
      'nautobot_openapi_endpoint_schema',
      'nautobot_dynamic_api_request',
      'refresh_endpoint_index',
    ]);
  });
});
