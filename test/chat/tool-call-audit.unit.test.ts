import { expect } from 'chai';
import { AgentLoop } from '../../src/chat/agent/agent-loop.js';
import type { AgentTurn } from '../../src/chat/agent/turn-types.js';
import type { AuditEntryInput } from '../../src/chat/audit/audit-log.port.js';
import { ToolCallAudit } from '../../src/chat/audit/tool-call-audit.js';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import type { ChatProvider, ToolCall } from '../../src/chat/providers/provider.port.js';

const TOOL = { name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: {} } };
const NOW = new Date('2026-11-23T12:00:00Z');

/** Asks for `calls` in one step, then answers in text. */
function provider(calls: ToolCall[]): ChatProvider {
  let asked = false;
  return {
    async chat() {
      const toolCalls = asked ? [] : calls;
      asked = true;
      return { content: toolCalls.length ? '' : 'done', toolCalls };
    },
  };
}

function turn(chat: ChatProvider, audit?: AgentTurn['audit']): AgentTurn {
  return {
    provider: chat,
    model: { id: 'model-1', name: 'model-1', provider: 'openai', temperature: 0, model_config: {} },
    prompt: [],
    message: 'go',
    userId: 'u-1',
    signal: new AbortController().signal,
    report: async () => undefined,
    ...(audit ? { audit } : {}),
  };
}

describe(ToolCallAudit.name, () => {
  const subject = { user: 'alice', userId: 'u-1', sessionId: 's-1', jobId: 'chat-t1', secrets: ['delegated-key-123'] };
  const tools: ChatTools = {
    list: async () => [TOOL],
    // A call with `write` waits for its owner's decision.
    review: async (_name, args) => ({ server: 'built-in', needsApproval: args.write === true }),
    async call(_name, args, context) {
      context.observe?.({ server: 'built-in' });
      if (args.fail) {
        context.observe?.({ httpStatus: 403 });
        throw new Error('403 forbidden');
      }
      context.observe?.({ httpStatus: 200 });
      return 'ok';
    },
  };

  function loopWith(entries: AuditEntryInput[]): AgentLoop {
    const log = { append: async (entry: AuditEntryInput) => void entries.push(entry) };
    return new AgentLoop({
      tools,
      limiter: new ConcurrencyLimiter(4),
      maxSteps: 5,
      toolTimeoutMs: 5_000,
      resultChars: 1_000,
      answerChars: 1_000,
      audit: new ToolCallAudit(log, ['service-token-456'], () => NOW),
    });
  }

  async function run(calls: ToolCall[], audit: AgentTurn['audit'] | null = subject): Promise<AuditEntryInput[]> {
    const entries: AuditEntryInput[] = [];
    await loopWith(entries).run(turn(provider(calls), audit ?? undefined));
    return entries;
  }

  it('records each finished call with its turn, server, outcome, HTTP status and duration', async () => {
    const entries = await run([
      { id: 'c1', name: 'lookup', arguments: { path: '/a/' } },
      { id: 'c2', name: 'lookup', arguments: { path: '/b/', fail: true } },
    ]);
    const byPath = (path: string) => entries.find((entry) => entry.arguments.path === path);
    expect(byPath('/a/')).to.deep.include({
      time: NOW.toISOString(),
      user: 'alice',
      user_id: 'u-1',
      session_id: 's-1',
      job_id: 'chat-t1',
      server: 'built-in',
      tool: 'lookup',
      outcome: 'ok',
      http_status: 200,
      approval: null,
    });
    expect(byPath('/b/')).to.include({ outcome: 'error', http_status: 403 });
    expect(byPath('/b/')!.duration_ms).to.be.a('number').at.least(0);
  });

  it("redacts the turn's credential, the service's secrets and credential-named fields", async () => {
    const [entry] = await run([{ id: 'c1', name: 'lookup', arguments: { q: 'delegated-key-123 and service-token-456', password: 'pw' } }]);
    expect(entry!.arguments).to.deep.equal({ q: '*** and ***', password: '***' });
  });

  it('blanks credentials however their names are spelt, keeping counts of tokens readable', async () => {
    const headers = { accessToken: 'a', clientSecret: 'b', secret_key: 'c', aws_secret_access_key: 'd', ssh_key: 'e', Cookie: 'f' };
    const [entry] = await run([{ id: 'c1', name: 'lookup', arguments: { headers, usage: { input_tokens: 3 }, key: 'name' } }]);
    expect(entry!.arguments).to.deep.equal({
      headers: { accessToken: '***', clientSecret: '***', secret_key: '***', aws_secret_access_key: '***', ssh_key: '***', Cookie: '***' },
      usage: { input_tokens: 3 },
      key: 'name',
    });
  });

  it('records nothing for a turn that does not say whose it is', async () => {
    expect(await run([{ id: 'c1', name: 'lookup', arguments: {} }], null)).to.deep.equal([]);
  });

  it("records the owner's decision: an approved call with its outcome, a declined one as declined", async () => {
    const entries: AuditEntryInput[] = [];
    const loop = loopWith(entries);
    const chat = provider([
      { id: 'c1', name: 'lookup', arguments: { write: true, path: '/yes/' } },
      { id: 'c2', name: 'lookup', arguments: { write: true, path: '/no/' } },
    ]);
    const first = await loop.run(turn(chat, subject));
    expect(first.kind).to.equal('paused');
    expect(entries).to.deep.equal([]);
    if (first.kind !== 'paused') return;
    const decided_at = '2026-11-23T12:01:00.000Z';
    await loop.run({
      ...turn(chat, subject),
      resume: {
        paused: first.paused,
        decisions: {
          c1: { approved: true, decided_by: 'u-1', decided_at },
          c2: { approved: false, decided_by: 'u-1', decided_at, note: 'not today' },
        },
      },
    });
    const byPath = (path: string) => entries.find((entry) => entry.arguments.path === path);
    expect(byPath('/yes/')).to.deep.include({
      outcome: 'ok',
      http_status: 200,
      approval: { decision: 'approved', decided_by: 'u-1', decided_at },
    });
    expect(byPath('/no/')).to.deep.include({
      outcome: 'declined',
      server: 'built-in',
      http_status: null,
      approval: { decision: 'declined', decided_by: 'u-1', decided_at, note: 'not today' },
    });
  });
});
