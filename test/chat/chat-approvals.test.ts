import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startApiServer, type ApiServer } from '../../src/roles/api.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { createRedisClient, waitForRedis, type RedisClient } from '../../src/kernel/redis/redis-client.js';
import { RedisApprovalStore } from '../../src/chat/adapters/redis-approval-store.adapter.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { callApi } from '../support/http.js';
import { openAiCompletion, protocolOf, replyFor, type StubReply, type StubRequest, type StubToolCall } from '../support/provider-stubs.js';
import { suiteEnvironment } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { readEvents, startChatHarness, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const MODELS = '/api/plugins/ai-ops/llm-models/';
const WORKER_FIXTURE = fileURLToPath(new URL('./fixtures/chat-worker.fixture.ts', import.meta.url));

/** The tool results the model was given in a request. */
function toolResults(request: StubRequest | undefined): string[] {
  return (request?.body.messages ?? [])
    .filter((message: { role: string }) => message.role === 'tool')
    .map((message: { content: string }) => message.content);
}

/** The model proposes creating the LLM model `name` through the API request tool, then (unless the turn ends before) answers 'done'. */
function proposeCreate(sut: ChatHarness, name: string, answers = true): void {
  sut.stub.respondWith(
    (request: StubRequest) =>
      replyFor(protocolOf(request.path), '', [
        {
          id: 'call_1',
          name: 'platform_dynamic_api_request',
          arguments: { method: 'POST', path: MODELS, body: { name, provider: 'ollama' } },
        },
      ]),
    ...(answers ? [(request: StubRequest) => replyFor(protocolOf(request.path), 'done')] : []),
  );
}

/** An OpenAI-protocol reply with both text and tool calls, as models write a step that explains its calls. */
function textAndCalls(text: string, calls: StubToolCall[]): StubReply {
  const body = openAiCompletion('', calls) as { choices: Array<{ message: { content: string | null } }> };
  body.choices[0]!.message.content = text;
  return { body };
}

async function modelCount(sut: ChatHarness, name: string): Promise<number> {
  return (await sut.records.llmModels.list({ limit: 10, offset: 0, filters: { name } })).count;
}

/** Asks, expects the turn to pause (202), and answers its status path. */
async function askPaused(sut: ChatHarness, key: string): Promise<string> {
  const reply = await sut.call('POST', CHAT, { key, body: { message: 'make a model' } });
  expect(reply.status).to.equal(202);
  const job = String(reply.body.status_url);
  await until(
    async () => (await sut.call('GET', job, { key })).body.status === 'awaiting_approval',
    30_000,
    'the turn to wait for approval',
  );
  return job;
}

/** The turn's status once it completed (a failure fails the test with its error). */
async function finished(sut: ChatHarness, key: string, job: string): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  await until(
    async () => ['completed', 'failed'].includes(String((body = (await sut.call('GET', job, { key })).body).status)),
    30_000,
    'the turn to finish',
  );
  expect(body, JSON.stringify(body)).to.include({ status: 'completed' });
  return body;
}

describe('approval before writes (API, queue, worker, built-in tools, stub provider)', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let dataDir: string;
  let writer: string;

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-approvals-'));
    sut = await startChatHarness(redis, {
      env: { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', DATA_DIR: dataDir, EMBEDDING_MODEL: 'none' },
    });
    await sut.model({ name: 'agent' });
    writer = await sut.token('writer', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('pauses a write until its owner approves, then makes it under the same job id', async () => {
    proposeCreate(sut, 'approved-model');
    const job = await askPaused(sut, writer);
    const paused = (await sut.call('GET', job, { key: writer })).body;
    expect(paused.approvals).to.have.length(1);
    expect(paused.approvals[0]).to.deep.include({
      id: 'call_1',
      tool: 'platform_dynamic_api_request',
      server: 'built-in',
      arguments: { method: 'POST', path: MODELS, body: { name: 'approved-model', provider: 'ollama' } },
    });
    // With what it will do, planned on this service's own API under the owner's rights.
    expect(paused.approvals[0].plan).to.deep.include({ summary: 'Create LLM model approved-model', count: 1, errors: [] });
    expect(await modelCount(sut, 'approved-model')).to.equal(0);

    const events = await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${writer}` } });
    const decided = await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_1', approve: true }] } });
    expect(decided.status).to.equal(202);
    expect(decided.body).to.deep.equal({ job_id: paused.job_id, status: 'queued', status_url: job });
    const names = (await readEvents(events)).map(([event]) => event);
    expect(names).to.include.members(['approval_required', 'approval_decided', 'tool_result', 'completed']);
    expect(names.indexOf('approval_required')).to.be.lessThan(names.indexOf('approval_decided'));

    expect(await finished(sut, writer, job)).to.include({ status: 'completed', response: 'done' });
    expect(await modelCount(sut, 'approved-model')).to.equal(1);
    const session = (await sut.call('GET', `${CHAT}sessions/${String(paused.session_id)}/`, { key: writer })).body;
    const result = session.messages.find((message: { role: string }) => message.role === 'tool');
    expect(result.approval).to.include({ approved: true });
    expect(result.approval.decided_by).to.be.a('string');
    expect(result.content).to.contain('201');
  });

  it("lists a paused turn among its owner's waiting turns, for any page or device to decide, and not for anyone else", async () => {
    proposeCreate(sut, 'listed-model');
    const job = await askPaused(sut, writer);
    const paused = (await sut.call('GET', job, { key: writer })).body;
    const listed = await sut.call('GET', `${CHAT}jobs/`, { key: writer });
    expect(listed.status).to.equal(200);
    expect(listed.body.results.map((entry: { job_id: string }) => entry.job_id)).to.include(paused.job_id);
    expect(listed.body.results.find((entry: { job_id: string }) => entry.job_id === paused.job_id)).to.deep.include({
      status: 'awaiting_approval',
      message: 'make a model',
      session_id: paused.session_id,
    });
    expect((await sut.call('GET', `${CHAT}jobs/?session_id=${String(paused.session_id)}`, { key: writer })).body.count).to.equal(1);
    expect((await sut.call('GET', `${CHAT}jobs/?session_id=00000000-0000-4000-8000-000000000000`, { key: writer })).body).to.deep.equal({
      count: 0,
      results: [],
    });
    const someoneElse = await sut.token('someone-else');
    expect((await sut.call('GET', `${CHAT}jobs/`, { key: someoneElse })).body).to.deep.equal({ count: 0, results: [] });

    await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_1', approve: false }] } });
    await finished(sut, writer, job);
    expect(
      (await sut.call('GET', `${CHAT}jobs/`, { key: writer })).body.results.map((entry: { job_id: string }) => entry.job_id),
    ).to.not.include(paused.job_id);
  });

  it('tells the model a declined call was declined by the user, with the note, and writes nothing', async () => {
    proposeCreate(sut, 'declined-model');
    const first = sut.stub.requests.length;
    const job = await askPaused(sut, writer);
    const decided = await sut.call('POST', `${job}approvals/`, {
      key: writer,
      body: { decisions: [{ id: 'call_1', approve: false, note: 'not on a Friday' }] },
    });
    expect(decided.status).to.equal(202);
    expect(await finished(sut, writer, job)).to.include({ status: 'completed', response: 'done' });
    expect(toolResults(sut.stub.requests[first + 1])).to.deep.equal(['declined by the user: not on a Friday']);
    expect(await modelCount(sut, 'declined-model')).to.equal(0);
    const again = await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_1', approve: true }] } });
    expect(again.status).to.equal(409);
  });

  it("lets only the turn's owner decide, and refuses ids that are not waiting", async () => {
    proposeCreate(sut, 'contested-model', false);
    const job = await askPaused(sut, writer);
    const other = await sut.token('other', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    expect(
      (await sut.call('POST', `${job}approvals/`, { key: other, body: { decisions: [{ id: 'call_1', approve: true }] } })).status,
    ).to.equal(404);
    expect((await sut.call('GET', job, { key: other })).status).to.equal(404);
    expect(
      (await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_9', approve: true }] } })).status,
    ).to.equal(400);
    expect((await sut.call('GET', job, { key: writer })).body.status).to.equal('awaiting_approval');
    // Stopping a paused turn ends it: it takes no decision, is not stored and makes nothing.
    expect((await sut.call('DELETE', job, { key: writer })).status).to.equal(204);
    expect((await sut.call('GET', job, { key: writer })).body.status).to.not.equal('awaiting_approval');
    expect(await modelCount(sut, 'contested-model')).to.equal(0);
  });

  it('pauses again for a later step’s write, with only the new call waiting', async () => {
    const create = (id: string, name: string) => (request: StubRequest) =>
      replyFor(protocolOf(request.path), '', [
        { id, name: 'platform_dynamic_api_request', arguments: { method: 'POST', path: MODELS, body: { name, provider: 'ollama' } } },
      ]);
    sut.stub.respondWith(create('call_1', 'first-of-two'), create('call_2', 'second-of-two'), (request: StubRequest) =>
      replyFor(protocolOf(request.path), 'both made'),
    );
    const job = await askPaused(sut, writer);
    expect(
      (await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_1', approve: true }] } })).status,
    ).to.equal(202);
    let status: Record<string, unknown> = {};
    await until(
      async () =>
        (status = (await sut.call('GET', job, { key: writer })).body).status === 'awaiting_approval' &&
        JSON.stringify(status.approvals).includes('call_2'),
      30_000,
      'the second pause',
    );
    expect((status.approvals as Array<{ id: string }>).map((call) => call.id)).to.deep.equal(['call_2']);
    expect(await modelCount(sut, 'first-of-two')).to.equal(1);
    expect(
      (await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_1', approve: true }] } })).status,
    ).to.equal(400);
    expect(
      (await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_2', approve: true }] } })).status,
    ).to.equal(202);
    expect(await finished(sut, writer, job)).to.include({ response: 'both made' });
    expect(await modelCount(sut, 'second-of-two')).to.equal(1);
  });

  it('answers a repeated request of a paused turn 202 with the same job', async () => {
    proposeCreate(sut, 'repeated-model', false);
    const headers = { 'idempotency-key': 'paused-turn-1' };
    const first = await sut.call('POST', CHAT, { key: writer, body: { message: 'make it once' }, headers });
    expect(first.status).to.equal(202);
    const job = String(first.body.status_url);
    await until(
      async () => (await sut.call('GET', job, { key: writer })).body.status === 'awaiting_approval',
      30_000,
      'the turn to wait for approval',
    );
    const again = await sut.call('POST', CHAT, { key: writer, body: { message: 'make it once' }, headers });
    expect(again.status).to.equal(202);
    expect(again.body.job_id).to.equal(first.body.job_id);
    expect((await sut.call('DELETE', job, { key: writer })).status).to.equal(204);
  });

  it('stops a turn awaiting approval: failed, "the turn was stopped" while awaiting approval, a second stop 409; a late stream replays its events in order', async () => {
    sut.stub.respondWith(
      textAndCalls('Reading the statuses first.', [
        { id: 'call_0', name: 'platform_dynamic_api_request', arguments: { method: 'GET', path: '/api/extras/statuses/' } },
      ]),
      textAndCalls('Now the model.', [
        {
          id: 'call_1',
          name: 'platform_dynamic_api_request',
          arguments: { method: 'POST', path: MODELS, body: { name: 'stopped-model' } },
        },
      ]),
    );
    const job = await askPaused(sut, writer);
    // Opened after both steps: it replays what the turn wrote, as it wrote it.
    const events = await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${writer}` } });
    expect((await sut.call('DELETE', job, { key: writer })).status).to.equal(204);
    const replayed = await readEvents(events);
    const steps = replayed
      .filter(([event]) => ['delta', 'tool_call', 'tool_result', 'approval_required'].includes(event))
      .map(([event, data]) => `${event}:${data.step}`);
    expect(steps.filter((step, index) => step !== steps[index - 1])).to.deep.equal([
      'delta:1',
      'tool_call:1',
      'tool_result:1',
      'delta:2',
      'tool_call:2',
      'approval_required:2',
    ]);
    const stopped = 'the turn was stopped while it was awaiting approval';
    expect(replayed.at(-1)).to.deep.equal(['failed', { job_id: job.split('/').at(-2), error: stopped }]);
    const view = await sut.call('GET', job, { key: writer });
    expect(view.status).to.equal(200);
    expect(view.body).to.include({ status: 'failed', error: stopped });
    expect(view.body).to.not.have.property('approvals');
    const again = await sut.call('DELETE', job, { key: writer });
    expect(again.status).to.equal(409);
    const decided = await sut.call('POST', `${job}approvals/`, { key: writer, body: { decisions: [{ id: 'call_1', approve: true }] } });
    expect(decided.status, 'no decision for a stopped turn').to.equal(409);
    expect(await modelCount(sut, 'stopped-model')).to.equal(0);
  });

  it('runs read-only calls (GET) without asking', async () => {
    sut.stub.respondWith(
      (request: StubRequest) =>
        replyFor(protocolOf(request.path), '', [
          { id: 'call_1', name: 'platform_dynamic_api_request', arguments: { method: 'GET', path: '/api/extras/statuses/' } },
        ]),
      (request: StubRequest) => replyFor(protocolOf(request.path), 'read'),
    );
    const reply = await sut.call('POST', CHAT, { key: writer, body: { message: 'list statuses' } });
    expect(reply.status).to.equal(200);
    expect(reply.body.response).to.equal('read');
  });
});

describe('approval waits that outlive APPROVAL_TIMEOUT_S', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let dataDir: string;

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-approvals-'));
    sut = await startChatHarness(redis, {
      env: { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', DATA_DIR: dataDir, EMBEDDING_MODEL: 'none', APPROVAL_TIMEOUT_S: '1' },
    });
    await sut.model({ name: 'agent' });
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('counts an undecided call as declined once the wait runs out', async () => {
    const key = await sut.token('forgetful', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    proposeCreate(sut, 'lapsed-model');
    const first = sut.stub.requests.length;
    const reply = await sut.call('POST', CHAT, { key, body: { message: 'make a model' } });
    expect(reply.status).to.equal(202);
    expect(await finished(sut, key, String(reply.body.status_url))).to.include({ status: 'completed', response: 'done' });
    expect(toolResults(sut.stub.requests[first + 1])).to.deep.equal(['declined: no decision within 1 s']);
    expect(await modelCount(sut, 'lapsed-model')).to.equal(0);
  });
});

describe('a late decision while no worker runs', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let dataDir: string;
  let worker: RunningWorkers | undefined;
  const startWorker = async () => {
    worker = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Chat], apiUrl: sut.baseUrl });
    await worker.ready();
  };

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-approvals-'));
    sut = await startChatHarness(redis, {
      workers: false,
      env: { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', DATA_DIR: dataDir, EMBEDDING_MODEL: 'none', APPROVAL_TIMEOUT_S: '4' },
    });
    await sut.model({ name: 'agent' });
  });
  after(async () => {
    await worker?.close();
    await sut.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses an approval after APPROVAL_TIMEOUT_S with 409, and the worker that comes back counts the call declined and runs nothing', async () => {
    const key = await sut.token('late', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    proposeCreate(sut, 'late-model');
    await startWorker();
    const first = sut.stub.requests.length;
    const job = await askPaused(sut, key);
    const expires = Date.parse(String((await sut.call('GET', job, { key })).body.approval_expires));
    await worker!.close();
    worker = undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires - Date.now()) + 500));

    const lapsed = (await sut.call('GET', job, { key })).body;
    expect(lapsed, 'it waits for a worker now, not for its owner').to.include({ status: 'queued' });
    expect(lapsed).to.not.have.any.keys('approvals', 'approval_expires');
    const turnId = String(lapsed.job_id).replace(/^chat-/, '');
    const round = await new RedisApprovalStore(redis.client, { prefix: sut.prefix }).get(turnId);
    expect(round?.closed, 'no worker has settled the round').to.equal(false);
    const late = await sut.call('POST', `${job}approvals/`, { key, body: { decisions: [{ id: 'call_1', approve: true }] } });
    expect(late.status).to.equal(409);
    expect(late.body.detail).to.include('its undecided calls count as declined');

    await startWorker();
    expect(await finished(sut, key, job)).to.include({ status: 'completed', response: 'done' });
    expect(toolResults(sut.stub.requests[first + 1])).to.deep.equal(['declined: no decision within 4 s']);
    expect(await modelCount(sut, 'late-model')).to.equal(0);
    const session = (await sut.call('GET', `${CHAT}sessions/${String((await sut.call('GET', job, { key })).body.session_id)}/`, { key }))
      .body;
    const result = session.messages.find((message: { role: string }) => message.role === 'tool');
    expect(result.approval).to.include({ approved: false, decided_by: null });
  });
});

describe('a paused turn and a killed worker', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let dataDir: string;
  let child: ChildProcess | undefined;
  let takeover: RunningWorkers | undefined;
  let otherApi: { server: ApiServer; redis: RedisClient } | undefined;

  before(async () => {
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-approvals-'));
    sut = await startChatHarness(redis, {
      workers: false,
      env: { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', DATA_DIR: dataDir, EMBEDDING_MODEL: 'none' },
    });
    await sut.model({ name: 'agent' });
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await takeover?.close();
    await otherApi?.server.close();
    otherApi?.redis.disconnect();
    await sut.close();
    await redis.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('loses nothing: another worker goes on once the owner approves through another API instance', async () => {
    const env = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: sut.config.redis.keyPrefix,
      // The worker is killed while no job of it runs: a lock of the usual length.
      FIXTURE_LOCK_MS: '30000',
      PORT: String(sut.api.port),
      AGENT_BUILTIN_TOOLS: 'true',
      AGENT_MAX_STEPS: '3',
      DATA_DIR: dataDir,
      EMBEDDING_MODEL: 'none',
      OUTBOUND_ALLOW: sut.config.security.outboundAllow.join(','),
      [sut.secret.variable]: String(process.env[sut.secret.variable]),
    };
    child = spawn(process.execPath, ['--import', 'tsx', WORKER_FIXTURE], {
      env: suiteEnvironment(env),
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const running = child;
    await new Promise<void>((resolve, reject) => {
      running.once('exit', (code) => reject(new Error(`worker fixture exited with ${code}`)));
      running.on('message', (message) => message === 'ready' && resolve());
    });
    const key = await sut.token('survivor', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    proposeCreate(sut, 'survivor-model');
    const job = await askPaused(sut, key);
    running.removeAllListeners('exit');
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });

    takeover = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Chat], apiUrl: sut.baseUrl });
    await takeover.ready();
    // Nothing of the paused turn lives in the API that asked: another instance shows it and takes the decision.
    const redisClient = createRedisClient({ topology: sut.config.redis.topology, role: 'request', logger: silentLogger() });
    await waitForRedis(redisClient, 5_000);
    otherApi = {
      redis: redisClient,
      server: await startApiServer({
        config: sut.config,
        redis: redisClient,
        port: 0,
        logger: silentLogger(),
        version: 'test',
        validateResponses: true,
      }),
    };
    const other = `http://127.0.0.1:${otherApi.server.port}`;
    expect((await callApi(other, 'GET', job, { key })).body.status).to.equal('awaiting_approval');
    expect(
      (await callApi(other, 'POST', `${job}approvals/`, { key, body: { decisions: [{ id: 'call_1', approve: true }] } })).status,
    ).to.equal(202);
    expect(await finished(sut, key, job)).to.include({ status: 'completed', response: 'done' });
    expect(await modelCount(sut, 'survivor-model')).to.equal(1);
  });
});
