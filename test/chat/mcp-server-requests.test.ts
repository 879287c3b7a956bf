import { expect } from 'chai';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { replyFor, type StubRequest } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { readEvents, startChatHarness, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
/** The protocol's reference server, over stdio. */
const EVERYTHING = {
  protocol: 'stdio',
  command: process.execPath,
  args: [packagePath('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
};

/** The tool results the model was given in a request. */
function toolResults(request: StubRequest | undefined): string[] {
  return (request?.body.messages ?? [])
    .filter((message: { role: string }) => message.role === 'tool')
    .map((message: { content: string }) => message.content);
}

/** Registers the reference server twice: `everything` as any record is, `sampler` with sampling allowed by a superuser. */
async function registerServers(sut: ChatHarness): Promise<void> {
  // Calls run without asking here: approvals have their own suite.
  await sut.records.mcpServers.create({ name: 'everything', status: 'Healthy', approval: 'never', ...EVERYTHING } as never, OPERATOR);
  await sut.records.mcpServers.create(
    { name: 'sampler', status: 'Healthy', approval: 'never', sampling: true, ...EVERYTHING } as never,
    OPERATOR,
  );
}

/** The model calls `tool` once, then answers 'done'. */
function callsOnce(sut: ChatHarness, tool: string, args: Record<string, unknown> = {}): void {
  sut.stub.respondWith(replyFor('openai', '', [{ id: 'call_1', name: tool, arguments: args }]), replyFor('openai', 'done'));
}

/** Asks without waiting: the job's status path. */
async function ask(sut: ChatHarness, key: string, message: string): Promise<string> {
  const reply = await sut.call('POST', CHAT, { key, body: { message }, headers: { prefer: 'respond-async' } });
  expect(reply.status, JSON.stringify(reply.body)).to.equal(202);
  return String(reply.body.status_url);
}

/** The turn's first question once it is asked. */
async function question(sut: ChatHarness, key: string, job: string): Promise<Record<string, unknown>> {
  let asked: Record<string, unknown> | undefined;
  await until(
    async () =>
      (asked = ((await sut.call('GET', job, { key })).body.elicitations as Record<string, unknown>[] | undefined)?.[0]) !== undefined,
    30_000,
    'the server to ask a question',
  );
  return asked!;
}

async function finished(sut: ChatHarness, key: string, job: string): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  await until(
    async () => ['completed', 'failed'].includes(String((body = (await sut.call('GET', job, { key })).body).status)),
    30_000,
    'the turn to finish',
  );
  return body;
}

describe("an MCP server's requests during a chat turn (the reference server over stdio)", function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let sut: ChatHarness;

  before(async () => {
    redis = await startTestRedis();
    // Tools answer within 2 s unless they report progress.
    sut = await startChatHarness(redis, { env: { MCP_TOOL_TIMEOUT_S: '2', MCP_TOOL_MAX_S: '60', APPROVAL_TIMEOUT_S: '60' } });
    await sut.model();
    await registerServers(sut);
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
  });

  it("puts a form question to the turn's user, refuses another user's answer and content outside the schema, and gives the server the accepted answer", async () => {
    const ada = await sut.token('ada');
    const eve = await sut.token('eve');
    callsOnce(sut, 'everything_trigger-elicitation-request');
    const before = sut.stub.requests.length;
    const job = await ask(sut, ada, 'ask me');
    const asked = await question(sut, ada, job);
    expect(asked).to.include({ mode: 'form', status: 'pending', server: 'everything', tool: 'everything_trigger-elicitation-request' });
    expect(asked).to.have.nested.property('requested_schema.properties.name.type', 'string');
    const answer = `${job}elicitations/${String(asked.id)}/`;
    const content = { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 3 };

    const foreign = await sut.call('POST', answer, { key: eve, body: { action: 'accept', content } });
    expect(foreign.status, JSON.stringify(foreign.body)).to.equal(404);
    const outside = await sut.call('POST', answer, { key: ada, body: { action: 'accept', content: { ...content, unasked: 'x' } } });
    expect(outside.status).to.equal(400);
    const badEmail = await sut.call('POST', answer, {
      key: ada,
      body: { action: 'accept', content: { ...content, email: 'not-an-address' } },
    });
    expect(badEmail.status).to.equal(400);
    const accepted = await sut.call('POST', answer, { key: ada, body: { action: 'accept', content } });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect((await sut.call('POST', answer, { key: ada, body: { action: 'decline' } })).status, 'a second answer').to.equal(409);

    expect(await finished(sut, ada, job)).to.include({ status: 'completed', response: 'done' });
    expect(toolResults(sut.stub.requests[before + 1]).join('\n')).to.include('Ada Lovelace');
    expect((await sut.call('GET', job, { key: ada })).body.elicitations).to.have.nested.property('[0].status', 'accept');
    const events = await readEvents(await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${ada}` } }));
    expect(events.map(([event]) => event)).to.include.members(['elicitation_required', 'elicitation_answered']);
    const answered = events.find(([event]) => event === 'elicitation_answered')![1];
    expect(answered).to.include({ id: asked.id, call_id: 'call_1', action: 'accept' });
    expect(answered.answered_by).to.be.a('string');

    const audit = await new RedisAuditLog(redis.client, { prefix: sut.prefix, retentionMs: 86_400_000 }).list({
      tool: 'elicitation/create',
      limit: 10,
      offset: 0,
    });
    expect(audit.results).to.have.length(1);
    expect(audit.results[0]).to.deep.include({ outcome: 'ok', server: 'everything' });
    expect(audit.results[0]!.arguments).to.deep.include({ action: 'accept', content });
  });

  it('gives the server a declined answer', async () => {
    const ada = await sut.token('ada');
    callsOnce(sut, 'everything_trigger-elicitation-request');
    const before = sut.stub.requests.length;
    const job = await ask(sut, ada, 'ask me again');
    const asked = await question(sut, ada, job);
    expect((await sut.call('POST', `${job}elicitations/${String(asked.id)}/`, { key: ada, body: { action: 'decline' } })).status).to.equal(
      200,
    );
    expect(await finished(sut, ada, job)).to.include({ status: 'completed' });
    expect(toolResults(sut.stub.requests[before + 1]).join('\n')).to.match(/decline/i);
  });

  it('relays progress as tool_progress events and restarts the 2 s limit on each (a 3 s operation in 6 steps, not the 40 s one)', async () => {
    const ada = await sut.token('ada');
    callsOnce(sut, 'everything_trigger-long-running-operation', { duration: 3, steps: 6 });
    const before = sut.stub.requests.length;
    const job = await ask(sut, ada, 'run it');
    expect(await finished(sut, ada, job)).to.include({ status: 'completed' });
    expect(toolResults(sut.stub.requests[before + 1]).join('\n')).to.include('Long running operation completed');
    const events = await readEvents(await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${ada}` } }));
    const progress = events.filter(([event]) => event === 'tool_progress').map(([, data]) => data);
    expect(progress.length).to.be.at.least(5);
    expect(progress[0]).to.include({ step: 1, id: 'call_1', name: 'everything_trigger-long-running-operation', progress: 1, total: 6 });
  });

  it('cancels the call of a stopped turn', async () => {
    const ada = await sut.token('ada');
    // The turn stops before the model is asked again.
    sut.stub.respondWith(
      replyFor('openai', '', [
        { id: 'call_1', name: 'everything_trigger-long-running-operation', arguments: { duration: 60, steps: 120 } },
      ]),
    );
    const job = await ask(sut, ada, 'run it long');
    const stream = await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${ada}` } });
    const reader = stream.body!.getReader();
    let seen = '';
    while (!seen.includes('event: tool_progress')) seen += new TextDecoder().decode((await reader.read()).value);
    expect((await sut.call('DELETE', job, { key: ada })).status).to.equal(204);
    await reader.cancel();
    const ended = await sut.call('GET', job, { key: ada });
    expect([404, 200]).to.include(ended.status);
    if (ended.status === 200) expect(await finished(sut, ada, job)).to.include({ status: 'failed' });
  });

  it("refuses sampling to a server whose record does not allow it, and serves it with the turn's model where a superuser allowed it", async () => {
    const ada = await sut.token('ada');
    callsOnce(sut, 'everything_trigger-sampling-request', { prompt: 'say hi', maxTokens: 20 });
    let before = sut.stub.requests.length;
    expect(await finished(sut, ada, await ask(sut, ada, 'sample'))).to.include({ status: 'completed' });
    expect(sut.stub.requests.length - before, 'no completion was asked of the model').to.equal(2);
    expect(toolResults(sut.stub.requests[before + 1]).join('\n')).to.include('sampling is not allowed for this server');

    sut.stub.respondWith(
      replyFor('openai', '', [{ id: 'call_1', name: 'sampler_trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 20 } }]),
      replyFor('openai', 'hi from the model'),
      replyFor('openai', 'done'),
    );
    before = sut.stub.requests.length;
    expect(await finished(sut, ada, await ask(sut, ada, 'sample again'))).to.include({ status: 'completed' });
    const [, sampling, last] = sut.stub.requests.slice(before);
    expect(JSON.stringify(sampling!.body.messages)).to.include('say hi');
    expect(sampling!.body.tools ?? []).to.deep.equal([]);
    expect(toolResults(last).join('\n')).to.include('hi from the model');
  });
});

describe("an MCP server's question nobody answers", function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let sut: ChatHarness;

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, { env: { APPROVAL_TIMEOUT_S: '1' } });
    await sut.model();
    await registerServers(sut);
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
  });

  it('counts as cancel once APPROVAL_TIMEOUT_S passes, and a late answer is refused', async () => {
    const ada = await sut.token('ada');
    callsOnce(sut, 'everything_trigger-elicitation-request');
    const before = sut.stub.requests.length;
    const job = await ask(sut, ada, 'ask me');
    const asked = await question(sut, ada, job);
    expect(await finished(sut, ada, job)).to.include({ status: 'completed' });
    expect(toolResults(sut.stub.requests[before + 1]).join('\n')).to.match(/cancel/i);
    expect((await sut.call('GET', job, { key: ada })).body.elicitations).to.have.nested.property('[0].status', 'cancel');
    expect((await sut.call('POST', `${job}elicitations/${String(asked.id)}/`, { key: ada, body: { action: 'decline' } })).status).to.equal(
      409,
    );
  });
});
