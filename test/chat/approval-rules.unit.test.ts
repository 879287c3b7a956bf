import { expect } from 'chai';
import { McpChatTools, needsApproval } from '../../src/chat/agent/mcp-chat-tools.js';
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
    const review = await tools.review('set_vlan', {});
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
