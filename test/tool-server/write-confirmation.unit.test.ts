import { expect } from 'chai';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { SealedBox } from '../../src/kernel/security/sealed-box.js';
import { MemoryHostState } from '../../src/tool-server/adapters/memory-host-state.adapter.js';
import { ConfirmTokens } from '../../src/write-plans/confirm-tokens.js';
import { WriteConfirmation, type HostConnection, type WriteCall, type WriteConfirmMode } from '../../src/tool-server/write-confirmation.js';
import { DELETE_PLAN } from '../support/delete-plan.js';

const PLAN = DELETE_PLAN;

describe('write confirmation modes (TOOLSERVER_WRITE_CONFIRM)', () => {
  const gate = (mode: WriteConfirmMode) =>
    new WriteConfirmation({
      mode,
      planner: { plan: async () => PLAN },
      tokens: new ConfirmTokens(new SealedBox('unit-test-key-0123456789abcdef0123')),
      state: new MemoryHostState(),
      ttlMs: 60_000,
      logger: silentLogger(),
      secrets: [],
    });
  const host = (superuser: boolean, elicitation: boolean): HostConnection => ({
    caller: superuser ? 'user:root' : 'static',
    user: superuser ? 'root' : 'MCP_HTTP_TOKEN',
    superuser,
    declared: () => ({ client: 'host', elicitation, session: null }),
  });
  let asked: number;
  const call = (): WriteCall => ({
    tool: 'platform_dynamic_api_request',
    request: { method: 'DELETE', path: '/api/dcim/devices/1/' },
    arguments: { method: 'DELETE', path: '/api/dcim/devices/1/' },
    ask: async () => {
      asked++;
      return { action: 'accept', content: { approve: true } };
    },
  });
  const reader = { request: async () => ({ status: 200, data: null, count: null }) };
  beforeEach(() => (asked = 0));

  it('none: a superuser (the operator over stdio) writes unasked; any other caller is asked as under auto', async () => {
    expect(await gate('none').clear(call(), host(true, true), reader)).to.deep.equal({ cleared: true, decision: 'none', plan: null });
    const other = await gate('none').clear(call(), host(false, true), reader);
    expect(other, JSON.stringify(other)).to.deep.include({ cleared: true, decision: 'elicitation' });
    expect(asked).to.equal(1);
  });

  it('token: a host that could be asked gets the plan and a confirm token instead', async () => {
    const clearance = await gate('token').clear(call(), host(false, true), reader);
    expect(asked).to.equal(0);
    expect(clearance.cleared).to.equal(false);
    const answer = !clearance.cleared ? (clearance.answer.structuredContent as Record<string, unknown>) : {};
    expect(answer).to.include({ confirmation: 'token', dry_run: true });
    expect(answer.confirm_token).to.be.a('string');
  });
});
