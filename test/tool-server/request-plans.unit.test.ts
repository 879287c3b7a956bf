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
import { createServer } from '../../src/tool-server/server.js';
import { ApiRequestOutput } from '../../src/tool-server/tools/dynamic-api-request.js';
import { fixture } from '../endpoint-search/support/stub-platform.js';
import { startObjectPlatform, type ObjectPlatform } from '../support/object-platform.js';
import { PlatformObjects } from '../support/platform-objects.js';

const DEVICES = '/api/dcim/devices/';

describe('the request tool of the tool server: dry runs and checked filters (Nautobot 1.3.7)', () => {
  let objects: PlatformObjects;
  let platform: ObjectPlatform;
  let dir: string;
  let runtime: PlatformToolServer;
  let client: Client;
  let leaf: Record<string, unknown>;

  before(async () => {
    objects = new PlatformObjects({ ids: 'uuid', references: { site: '/api/dcim/sites/' } });
    const [site] = objects.seed('/api/dcim/sites/', [{ name: 'ams1', slug: 'ams1' }]);
    [leaf] = objects.seed(DEVICES, [{ name: 'leaf-1', site: site!.id, status: 'active' }]) as [Record<string, unknown>];
    platform = await startObjectPlatform(fixture('nautobot-openapi.json'), objects);
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-plans-mcp-'));
    runtime = await buildPlatformToolServer(
      loadConfig({ PLATFORM_URL_LOCAL: platform.url, PLATFORM_TOKEN: 'service-token-0123456789', EMBEDDING_MODEL: 'none', DATA_DIR: dir }),
      silentLogger(),
    );
    const { server } = createServer(runtime.deps, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test', version: '1' });
    await server.connect(serverSide);
    await client.connect(clientSide);
  });
  after(async () => {
    await client.close();
    await runtime.close();
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'platform_dynamic_api_request', arguments: args })) as CallToolResult;

  it('answers the plan of a write for dry_run: true and writes nothing', async () => {
    const result = await call({ method: 'PATCH', path: `${DEVICES}${String(leaf.id)}/`, body: { status: 'planned' }, dry_run: true });
    expect(result.isError).to.not.equal(true);
    const answer = z.object(ApiRequestOutput).parse(result.structuredContent);
    expect(answer).to.deep.include({ dry_run: true });
    expect(answer.plan).to.deep.include({ summary: 'Update device leaf-1', count: 1, errors: [] });
    expect(answer.plan!.objects[0]!.changes).to.deep.equal([
      { field: 'status', before: 'active', after: 'planned', current: 'active', planned: 'planned' },
    ]);
    expect(objects.writes).to.deep.equal([]);
    expect(platform.requests.every((request) => request.method === 'GET')).to.equal(true);

    const invalid = z
      .object(ApiRequestOutput)
      .parse((await call({ method: 'POST', path: '/api/ipam/vlans/', body: { vid: 5000, name: 'big' }, dry_run: true })).structuredContent);
    expect(invalid.plan!.errors).to.deep.equal([
      { field: 'status', message: 'is required' },
      { field: 'vid', message: '5000 is above the maximum 4094' },
    ]);
    expect(objects.writes).to.deep.equal([]);
  });

  it('refuses a filter the operation does not declare before asking the platform, naming the closest', async () => {
    const before = platform.requests.length;
    const result = await call({ method: 'GET', path: DEVICES, params: { site_name: 'ams1', limit: 5 } });
    expect(result.isError).to.equal(true);
    const body = JSON.parse((result.content[0] as { text: string }).text) as { details: { fields: Record<string, string[]> } };
    expect(body.details.fields).to.deep.equal({
      'params.site_name': ['`site_name` is not a filter of GET /api/dcim/devices/; did you mean `site` or `site_id`?'],
    });
    expect(platform.requests).to.have.length(before);
    const listed = z
      .object(ApiRequestOutput)
      .parse((await call({ method: 'GET', path: DEVICES, params: { site: 'ams1', limit: 5 } })).structuredContent);
    expect(listed).to.include({ status: 200, count: 1 });
  });
});
