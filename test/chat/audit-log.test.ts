import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import type { AuditEntryInput } from '../../src/chat/audit/audit-log.port.js';
import { startChatHarness, type ChatHarness } from './chat-harness.js';
import { protocolOf, replyFor, type StubRequest } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const AUDIT = '/api/plugins/ai-ops/audit-log/';
const REQUEST_TOOL = 'platform_dynamic_api_request';

describe('the audit log of tool calls', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let dataDir: string;
  let auditor: string;
  const started = new Date(Date.now() - 1_000).toISOString();

  /**
   * One turn in which the model makes `calls` (all in one step), then answers; a call that waits
   * for its owner is decided with `decision`. Resolves once the turn is answered.
   */
  async function turn(
    key: string,
    calls: Array<{ name: string; arguments: Record<string, unknown> }>,
    decision?: { approve: boolean; note?: string },
  ): Promise<{ session_id: string; job_id: string }> {
    sut.stub.respondWith(
      (request: StubRequest) =>
        replyFor(
          protocolOf(request.path),
          '',
          calls.map((call, index) => ({ id: `call_${index}`, ...call })),
        ),
      (request: StubRequest) => replyFor(protocolOf(request.path), 'done'),
    );
    let reply = await sut.call('POST', CHAT, { key, body: { message: 'do it' } });
    if (decision && reply.status === 202) {
      const job = String(reply.body.status_url);
      await until(
        async () => (await sut.call('GET', job, { key })).body.status === 'awaiting_approval',
        30_000,
        'the turn to wait for approval',
      );
      const decided = await sut.call('POST', `${job}approvals/`, { key, body: { decisions: [{ id: 'call_0', ...decision }] } });
      expect(decided.status).to.equal(202);
      await until(
        async () => (reply = await sut.call('GET', job, { key })).body.status === 'completed',
        30_000,
        'the decided turn to complete',
      );
    }
    expect(reply.body.session_id, JSON.stringify(reply.body)).to.be.a('string');
    return reply.body as { session_id: string; job_id: string };
  }

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-audit-'));
    sut = await startChatHarness(redis, {
      env: { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', DATA_DIR: dataDir, EMBEDDING_MODEL: 'none' },
    });
    await sut.model({ name: 'agent' });
    auditor = await sut.token('auditor', ['ai_ops.view_auditlog']);
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists every call of a turn with who made it, the outcome and the platform status', async () => {
    const key = await sut.token('alice', ['ai_ops.chat', 'extras.view_status']);
    const { session_id, job_id } = await turn(key, [
      { name: REQUEST_TOOL, arguments: { method: 'GET', path: '/api/extras/statuses/' } },
      { name: REQUEST_TOOL, arguments: { method: 'GET', path: '/api/extras/secrets/' } },
      { name: 'no_such_tool', arguments: {} },
    ]);
    const listed = await sut.call('GET', `${AUDIT}?user=alice`, { key: auditor });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body).to.include({ count: 3, next: null, previous: null });
    const entries = (listed.body as { results: Array<Record<string, unknown>> }).results;
    const byPath = (target: string) => entries.find((entry) => (entry.arguments as { path?: string }).path === target);
    expect(byPath('/api/extras/statuses/')).to.include({
      user: 'alice',
      session_id,
      job_id,
      server: 'built-in',
      tool: REQUEST_TOOL,
      outcome: 'ok',
      http_status: 200,
      approval: null,
    });
    // A chat-only user's agent got the 403 the user would get.
    expect(byPath('/api/extras/secrets/')).to.include({ outcome: 'error', http_status: 403 });
    expect(entries.find((entry) => entry.tool === 'no_such_tool')).to.include({ outcome: 'error', server: null, http_status: null });
    for (const entry of entries) {
      expect(entry.duration_ms).to.be.a('number').at.least(0);
      expect(Date.parse(entry.time as string)).to.be.at.least(Date.parse(started));
    }
  });

  it('redacts secret values from the recorded arguments, and records who approved the call and when', async () => {
    const key = await sut.token('bob', ['ai_ops.chat']);
    await turn(
      key,
      [
        {
          name: REQUEST_TOOL,
          arguments: {
            method: 'POST',
            path: '/api/plugins/ai-ops/llm-models/',
            body: {
              name: 'eve',
              model_secret_key: 'named-secret',
              model_config: { password: 'hunter2-hunter2', api_key: 'sk-live-abcdef' },
            },
          },
        },
      ],
      { approve: true },
    );
    const listed = await sut.call('GET', `${AUDIT}?user=bob`, { key: auditor });
    const [entry] = (
      listed.body as {
        results: Array<{
          arguments: { body: Record<string, unknown> };
          outcome: string;
          http_status: number;
          user_id: string;
          approval: Record<string, unknown>;
        }>;
      }
    ).results;
    expect(entry!.arguments.body).to.deep.equal({
      name: 'eve',
      model_secret_key: 'named-secret',
      model_config: { password: '***', api_key: '***' },
    });
    // Nor in the plan kept with it.
    expect(JSON.stringify(listed.body)).to.not.contain('hunter2').and.not.contain('sk-live');
    // Approved by its owner, then refused by the platform: bob may not create LLM models.
    expect(entry).to.include({ outcome: 'error', http_status: 403 });
    expect(entry!.approval).to.include({ decision: 'approved', decided_by: entry!.user_id, decided_by_name: 'bob' });
    expect(Date.parse(entry!.approval.decided_at as string)).to.be.at.least(Date.parse(started));
  });

  it('records a declined call as declined, with the note', async () => {
    const key = await sut.token('heidi', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    await turn(
      key,
      [
        {
          name: REQUEST_TOOL,
          arguments: { method: 'POST', path: '/api/plugins/ai-ops/llm-models/', body: { name: 'never-made', provider: 'ollama' } },
        },
      ],
      {
        approve: false,
        note: 'not today',
      },
    );
    const listed = await sut.call('GET', `${AUDIT}?user=heidi&outcome=declined`, { key: auditor });
    expect(listed.body).to.include({ count: 1 });
    const [entry] = (listed.body as { results: Array<Record<string, unknown>> }).results;
    expect(entry).to.include({ server: 'built-in', tool: REQUEST_TOOL, http_status: null });
    expect(entry!.approval).to.include({ decision: 'declined', note: 'not today' });
  });

  it('filters by user, tool, outcome and time', async () => {
    const key = await sut.token('carol', ['ai_ops.chat', 'extras.view_status']);
    await turn(key, [
      { name: REQUEST_TOOL, arguments: { method: 'GET', path: '/api/extras/statuses/' } },
      { name: 'platform_kb_semantic_search', arguments: { query: 'vlan' } },
    ]);
    const count = async (query: string) => ((await sut.call('GET', `${AUDIT}?${query}`, { key: auditor })).body as { count: number }).count;
    expect(await count('user=carol')).to.equal(2);
    expect(await count(`user=carol&tool=${REQUEST_TOOL}`)).to.equal(1);
    expect(await count('user=carol&outcome=declined')).to.equal(0);
    expect(await count('outcome=ok&user=carol')).to.equal(1);
    // Searching the knowledge base needs ai_ops.view_kb.
    expect(await count('outcome=error&tool=platform_kb_semantic_search&user=carol')).to.equal(1);
    expect(await count(`user=carol&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).to.equal(0);
    // As the README writes it: the colons of the time need no encoding.
    expect(await count(`user=carol&since=${new Date(Date.now() - 3_600_000).toISOString()}`)).to.equal(2);
    const page = await sut.call('GET', `${AUDIT}?user=carol&limit=1`, { key: auditor });
    expect(page.body).to.include({ count: 2 });
    expect((page.body as { results: unknown[]; next: string | null }).results).to.have.length(1);
    expect((page.body as { next: string | null }).next).to.contain('offset=1');
  });

  it('needs ai_ops.view_auditlog, and has no way to change or delete an entry', async () => {
    const chatOnly = await sut.token('dave');
    expect((await sut.call('GET', AUDIT, { key: chatOnly })).status).to.equal(403);
    const superuser = (
      await sut.records.tokens.create({ username: 'root', superuser: true, permissions: [], writeEnabled: true, expires: null })
    ).key;
    expect((await sut.call('GET', AUDIT, { key: superuser })).status).to.equal(200);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect((await sut.call(method, AUDIT, { key: superuser, body: {} })).status, method).to.equal(405);
    }
    expect((await sut.call('GET', `${AUDIT}?outcome=maybe`, { key: auditor })).status).to.equal(400);
  });

  it('keeps entries for the retention period only', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const log = new RedisAuditLog(redis.client, { prefix: `${sut.prefix}-retention`, retentionMs: 86_400_000, now: () => now });
    const entry: AuditEntryInput = {
      time: new Date(now).toISOString(),
      user: 'erin',
      user_id: 'erin-id',
      session_id: 's',
      job_id: 'chat-1',
      server: 'built-in',
      tool: REQUEST_TOOL,
      arguments: {},
      outcome: 'ok',
      http_status: 200,
      approval: null,
      duration_ms: 3,
    };
    await log.append(entry);
    expect((await log.list({ limit: 10, offset: 0 })).count).to.equal(1);
    now += 86_400_000 + 1;
    expect((await log.list({ limit: 10, offset: 0 })).count).to.equal(0);
  });
});
