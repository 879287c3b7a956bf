import { expect } from 'chai';
import { McpChatTools, needsApproval } from '../../src/chat/agent/mcp-chat-tools.js';
import { PlanChangedError } from '../../src/chat/chat-tools.port.js';
import type { WritePlan } from '../../src/write-plans/write-plan.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { mcpServerDefaults, type McpServerRecord } from '../../src/records/mcp-server.js';
import type { StatusRecord } from '../../src/records/status.js';

describe(needsApproval.name, () => {
  it("follows the server's approval field, trusting annotations of internal servers only", () => {
    const cases: Array<[Parameters<typeof needsApproval>[0], boolean | undefined, boolean]> = [
      [{ approval: 'writes', mcp_type: 'internal' }, true, false],
      [{ approval: 'writes', mcp_type: 'internal' }, false, true],
      [{ approval: 'writes', mcp_type: 'internal' }, undefined, true],
      [{ approval: 'writes', mcp_type: 'external' }, true, true],
      [{ approval: 'always', mcp_type: 'internal' }, true, true],
      [{ approval: 'never', mcp_type: 'external' }, false, false],
    ];
    for (const [server, readOnlyHint, expected] of cases) {
      expect(needsApproval(server, readOnlyHint === undefined ? {} : { readOnlyHint }), JSON.stringify({ server, readOnlyHint })).to.equal(
        expected,
      );
    }
  });
});

describe(`${McpChatTools.name}: an approved call`, () => {
  const healthy: StatusRecord = { id: 'healthy-id', name: 'Healthy', description: '', color: '', created: '', last_updated: '' };
  const server = (id: string, lastUpdated: string): McpServerRecord => ({
    ...mcpServerDefaults(),
    id,
    name: 'netops',
    url: 'https://netops.example',
    mcp_type: 'external',
    status_id: healthy.id,
    created: '2026-01-01T00:00:00.000Z',
    last_updated: lastUpdated,
    last_checked: null,
    last_error: null,
    latency_ms: null,
    last_check_method: null,
  });

  /** The tools of whichever one server the record store holds now, and the calls that reached it. */
  function toolsOver(current: { server: McpServerRecord }) {
    const calls: string[] = [];
    const tools = new McpChatTools({
      servers: { all: async () => ({ records: [current.server], flagHolder: null }) },
      statuses: { getByName: async (name) => (name === healthy.name ? healthy : null) },
      versions: { get: async () => new Map(), bump: async () => undefined, forget: async () => undefined },
      manager: {
        listTools: async () => [{ name: 'set_vlan', description: 'Sets a VLAN', inputSchema: { type: 'object' } }],
        callTool: async ({ server: target }) => {
          calls.push(target.id);
          return { content: [{ type: 'text', text: 'done' }], isError: false };
        },
      },
      toolTimeoutMs: 1_000,
      logger: silentLogger(),
    });
    return { tools, calls };
  }
  const approval = { approved: true, decided_by: 'u1', decided_at: '2026-01-01T00:00:00.000Z' };

  it('is made on the server it was proposed on, and not once that server was changed or another took its name', async () => {
    const current = { server: server('a', '2026-01-01T00:00:00.000Z') };
    const { tools, calls } = toolsOver(current);
    const review = await tools.review('set_vlan', {}, { userId: 'u1', signal: new AbortController().signal });
    expect(review).to.include({ server: 'netops', needsApproval: true });
    const context = { userId: 'u1', signal: new AbortController().signal, approval, reviewedServerRef: review.serverRef! };
    expect(await tools.call('set_vlan', { vid: 10 }, context)).to.equal('done');

    current.server = server('a', '2026-01-02T00:00:00.000Z');
    await tools.call('set_vlan', { vid: 10 }, context).then(
      () => expect.fail('made on a server changed since the approval'),
      (error: Error) => expect(error.message).to.match(/changed or replaced after this call was proposed/),
    );
    current.server = server('b', '2026-01-01T00:00:00.000Z');
    await tools.call('set_vlan', { vid: 10 }, context).then(
      () => expect.fail('made on another server of the same name'),
      (error: Error) => expect(error.message).to.match(/not made/),
    );
    expect(calls).to.deep.equal(['a']);
  });
});

describe(`${McpChatTools.name}: writes through an internal platform tool server`, () => {
  const healthy: StatusRecord = { id: 'healthy-id', name: 'Healthy', description: '', color: '', created: '', last_updated: '' };
  const toolServer: McpServerRecord = {
    ...mcpServerDefaults(),
    id: 'ts',
    name: 'platform-tools',
    url: 'https://tools.example',
    mcp_type: 'internal',
    status_id: healthy.id,
    created: '2026-01-01T00:00:00.000Z',
    last_updated: '2026-01-01T00:00:00.000Z',
    last_checked: null,
    last_error: null,
    latency_ms: null,
    last_check_method: null,
  };
  const plan = (lastUpdated: string, errors: WritePlan['errors'] = []): WritePlan => ({
    method: 'PATCH',
    path: '/api/dcim/devices/1/',
    operation: 'PATCH /api/dcim/devices/{id}/',
    summary: 'Update device leaf-1',
    objects: [{ id: '1', display: 'leaf-1', path: '/api/dcim/devices/1/', last_updated: lastUpdated, effect: 'update', changes: [] }],
    count: 1,
    errors,
    notes: [],
  });
  const context = { userId: 'u1', signal: new AbortController().signal };

  /** The server answers dry runs with `planned.now`; every other call is a write. */
  function toolsOver(planned: { now: WritePlan }) {
    const writes: Array<Record<string, unknown>> = [];
    const tools = new McpChatTools({
      servers: { all: async () => ({ records: [toolServer], flagHolder: null }) },
      statuses: { getByName: async (name) => (name === healthy.name ? healthy : null) },
      versions: { get: async () => new Map(), bump: async () => undefined, forget: async () => undefined },
      manager: {
        listTools: async () => [
          {
            name: 'platform_dynamic_api_request',
            description: 'Calls the platform',
            inputSchema: { type: 'object', properties: { method: {}, path: {}, body: {}, dry_run: {} } },
          },
        ],
        callTool: async (_target, _name, args) => {
          if (args.dry_run === true) return { content: [], structuredContent: { dry_run: true, plan: planned.now }, isError: false };
          writes.push(args);
          return { content: [{ type: 'text', text: 'written' }], isError: false };
        },
      },
      toolTimeoutMs: 1_000,
      logger: silentLogger(),
    });
    return { tools, writes };
  }
  const args = { method: 'PATCH', path: '/api/dcim/devices/1/', body: { status: 'planned' } };

  it('waits with the plan the server answers for a dry run, and is made only while that plan holds', async () => {
    const planned = { now: plan('2026-01-01T00:00:00Z') };
    const { tools, writes } = toolsOver(planned);
    const review = await tools.review('platform_dynamic_api_request', args, context);
    expect(review).to.deep.include({ needsApproval: true, plan: planned.now });
    expect(writes).to.deep.equal([]);

    planned.now = plan('2026-01-02T00:00:00Z');
    const approved = { ...context, plan: review.plan!, reviewedServerRef: review.serverRef! };
    const moved = await tools.call('platform_dynamic_api_request', args, approved).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(moved).to.be.instanceOf(PlanChangedError);
    expect((moved as PlanChangedError).reasons[0]).to.match(/^leaf-1 was changed since the plan/);
    expect(writes).to.deep.equal([]);

    expect(await tools.call('platform_dynamic_api_request', args, { ...approved, plan: planned.now })).to.equal('written');
    expect(writes).to.deep.equal([args]);
  });

  it('refuses a write whose plan has errors to the model, without asking', async () => {
    const { tools } = toolsOver({ now: plan('2026-01-01T00:00:00Z', [{ field: 'status', message: 'is required' }]) });
    const review = await tools.review('platform_dynamic_api_request', args, context);
    expect(review.needsApproval).to.equal(false);
    expect(review.refusal).to.contain('- status: is required');
  });
});
