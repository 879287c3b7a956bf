import { expect } from 'chai';
import { needsApproval } from '../../shared/agent/mcp-chat-tools.js';

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
      expect(needsApproval(server, readOnlyHint === undefined ? {} : { readOnlyHint }), JSON.stringify({ server, readOnlyHint })).to.equal(expected);
    }
  });
});
