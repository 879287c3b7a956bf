import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildPlatformToolServer, type PlatformToolServer } from '../../src/roles/mcp.js';
import { createServer } from '../../src/tool-server/server.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';

/**
 * Every answer shape of every tool goes through the SDK's own client after it listed the tools:
 * that client checks each structured answer against the output schema the tool declared, as hosts do.
 */
describe('Tool answers match their declared output schemas (SDK client)', () => {
  let platform: StubPlatform;
  let dir: string;
  let runtime: PlatformToolServer;
  let client: Client;
  let cleanup: () => Promise<void>;

  before(async () => {
    platform = await startStubPlatform(fixture('nautobot-openapi.json'));
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-answers-'));
    runtime = await buildPlatformToolServer(
      loadConfig({
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: 'nbtoken-0123456789abcdef',
        EMBEDDING_MODEL: 'none',
        PLATFORM_INDEX_WAIT_MS: '10000',
        PLATFORM_ANSWER_BUDGET_CHARS: '2000',
        DATA_DIR: dir,
      }),
      silentLogger(),
    );
    const built = createServer(runtime.deps, 'test');
    cleanup = built.cleanup;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'host', version: '1' });
    await built.server.connect(serverSide);
    await client.connect(clientSide);
    // Listing is what arms the client's checks of structured answers.
    const { tools } = await client.listTools();
    expect(tools.every((tool) => tool.outputSchema !== undefined)).to.equal(true);
  });
  after(async () => {
    await client.close();
    await cleanup();
    await runtime.close();
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('the request tool: a dry run answers its plan', async () => {
    platform.answer('GET', '/api/ipam/vlans/7/', 200, { id: 7, display: 'guest (300)', vid: 300, name: 'guest' });
    const result = await call('platform_dynamic_api_request', { method: 'DELETE', path: '/api/ipam/vlans/7/', dry_run: true });
    expect(result.isError).to.not.equal(true);
    expect(result.structuredContent).to.include({ dry_run: true });
    expect(result.structuredContent).to.have.nested.property('plan.summary');
  });

  it('the request tool: a read, a page of a long list, an empty 204 and an error', async () => {
    platform.answer('GET', '/api/dcim/sites/1/', 200, { id: 1, name: 'ams1' });
    expect((await call('platform_dynamic_api_request', { method: 'GET', path: '/api/dcim/sites/1/' })).structuredContent).to.deep.include({
      status: 200,
    });
    platform.answer('GET', '/api/extras/tags/', 200, {
      count: 300,
      next: 'http://x/api/extras/tags/?limit=100&offset=100',
      results: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `tag-${i}`, description: 'x'.repeat(40) })),
    });
    const page = await call('platform_dynamic_api_request', { method: 'GET', path: '/api/extras/tags/', params: { limit: 100 } });
    expect(page.structuredContent).to.have.property('next_offset');
    platform.answer('DELETE', '/api/ipam/vlans/7/', 204, null);
    expect((await call('platform_dynamic_api_request', { method: 'DELETE', path: '/api/ipam/vlans/7/' })).structuredContent).to.include({
      status: 204,
    });
    platform.answer('GET', '/api/dcim/sites/', 404, { detail: 'Not found.' });
    expect((await call('platform_dynamic_api_request', { method: 'GET', path: '/api/dcim/sites/' })).isError).to.equal(true);
  });

  it('the search and schema tools: hits, a description, an unknown endpoint, a refresh', async () => {
    expect((await call('platform_openapi_api_request_schema', { query: 'list VLANs' })).isError).to.not.equal(true);
    expect((await call('platform_openapi_endpoint_schema', { method: 'POST', path: '/api/ipam/vlans/' })).isError).to.not.equal(true);
    expect((await call('platform_openapi_endpoint_schema', { method: 'GET', path: '/api/ipam/vlan/' })).isError).to.equal(true);
    expect((await call('refresh_endpoint_index')).isError).to.not.equal(true);
  });

  it('the knowledge-base tools: an empty list, status, search, runs with nothing to run, a refused repository', async () => {
    expect((await call('platform_kb_list_repos')).isError).to.not.equal(true);
    expect((await call('platform_kb_repo_status')).isError).to.not.equal(true);
    expect((await call('platform_kb_semantic_search', { query: 'rack elevations' })).isError).to.not.equal(true);
    await call('platform_kb_update_repos');
    await call('platform_kb_init_repos');
    expect((await call('platform_kb_add_repo', { repo: 'not a repository' })).isError).to.equal(true);
    expect((await call('platform_kb_remove_repo', { repo: 'owner/missing' })).isError).to.equal(true);
  });
});
