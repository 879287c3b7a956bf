import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { jobQueue } from '../../src/kernel/bullmq/job-queue.adapter.js';
import { RedisSessionStore } from '../../src/chat/adapters/redis-session-store.adapter.js';
import { loadConfig, type Config } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { chatTurnJobId, ChatJobName, type ChatTurnData } from '../../src/chat/chat.jobs.js';
import { openQueue, QueueName, type CatalogueQueue } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { suiteEnvironment } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import type { TokenRecord, TokenService } from '../../src/records/auth/token.service.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/chat-worker.fixture.ts', import.meta.url));

/** Starts the worker fixture; resolves once it is taking jobs. */
function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: suiteEnvironment(env),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`worker fixture exited with ${code}`)));
    child.on('message', (message) => message === 'ready' && resolve(child));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('Chat worker killed with SIGKILL mid-turn', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let stub: ProviderStub;
  let config: Config;
  let queue: CatalogueQueue<typeof QueueName.Chat>;
  let takeover: RunningWorkers | undefined;
  let child: ChildProcess | undefined;
  let env: Record<string, string>;
  let modelId: string;
  let tokens: TokenService;
  const variable = `AIOPS_KILL_TEST_KEY_${process.pid}`;

  beforeEach(async () => {
    redis = await startTestRedis();
    stub = await startProviderStub();
    const prefix = `kill${randomUUID().slice(0, 8)}`;
    env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, [variable]: 'sk-kill-test', PROVIDER_MAX_RETRIES: '0' };
    process.env[variable] = 'sk-kill-test';
    config = loadConfig(env);
    const records = createRecords(redis.client, prefix);
    await records.secrets.create({ name: 'key', description: '', provider: 'environment-variable', parameters: { variable } }, OPERATOR);
    const model = await records.llmModels.create(
      {
        name: 'stubbed',
        description: '',
        provider: 'openai',
        model_secret_key: 'key',
        hosted_endpoint: `${stub.url}/v1`,
        api_version: '',
        is_default: true,
        temperature: 0,
        model_config: {},
        system_prompt: '',
      },
      OPERATOR,
    );
    modelId = model.id;
    tokens = records.tokens;
    queue = openQueue(QueueName.Chat, { connection: redis.client, keyPrefix: prefix, logger: silentLogger(), events: true });
    await queue.ready();
  });

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) await killed(child);
    child = undefined;
    await takeover?.close();
    takeover = undefined;
    await queue.close();
    await stub.close();
    await redis.destroy();
    delete process.env[variable];
  });

  async function ask(message: string, tokenId?: string): Promise<ChatTurnData> {
    const data: ChatTurnData = {
      turnId: randomUUID(),
      userId: randomUUID(),
      ...(tokenId ? { tokenId } : {}),
      sessionId: 's1',
      modelId,
      generation: 0,
      message,
    };
    await jobQueue(queue, ChatJobName.Turn).add({ name: ChatJobName.Turn, data }, chatTurnJobId(data.turnId));
    return data;
  }

  async function storedTurns(data: ChatTurnData) {
    const client = redis.client.duplicate({ db: config.redis.sessionDb });
    try {
      return await new RedisSessionStore(client, { prefix: config.redis.keyPrefix, ttlSeconds: 60 }).get(data.userId, data.sessionId);
    } finally {
      client.disconnect();
    }
  }

  /** A second worker that notices the dead worker's job quickly. */
  async function takeOver(): Promise<void> {
    takeover = await startWorkers(config, silentLogger(), {
      queues: [QueueName.Chat],
      concurrency: 1,
      lockDurationMs: 1_000,
      stalledIntervalMs: 500,
    });
    await takeover.ready();
  }

  /**
   * The turn's outcome once a second worker takes it over. The wait starts before the takeover: a
   * job the takeover fails at once (the stall limit) or answers from its session would otherwise
   * end before anyone listened, and only events from the wait's start on count.
   */
  async function outcomeAfterTakeOver(data: ChatTurnData) {
    const outcome = jobQueue(queue, ChatJobName.Turn).waitFor(chatTurnJobId(data.turnId), 30_000);
    await takeOver();
    return outcome;
  }

  it('killed while the provider is answering: the retried turn is stored once', async () => {
    child = await spawnWorker(env);
    stub.respondWith({ hold: true });
    const data = await ask('first try dies');
    await stub.received(1);
    await killed(child);
    const outcome = await outcomeAfterTakeOver(data);
    expect(outcome).to.deep.include({ state: 'completed' });
    const session = await storedTurns(data);
    expect(session?.turns).to.equal(1);
    expect(session?.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    expect(stub.requests).to.have.length(2);
  });

  it('killed after storing the turn, before completing the job: the retry answers from the stored session without storing again', async () => {
    child = await spawnWorker({ ...env, FIXTURE_HANG_AFTER_STORE: '1' });
    const stored = new Promise<void>((resolve) => child!.on('message', (message) => message === 'stored' && resolve()));
    const data = await ask('store me once');
    await stored;
    await killed(child);
    const outcome = await outcomeAfterTakeOver(data);
    expect(outcome).to.deep.equal({
      state: 'completed',
      result: { response: 'echo: store me once', sessionId: 's1', model: 'stubbed', stored: true },
    });
    const session = await storedTurns(data);
    expect(session?.turns).to.equal(1);
    expect(session?.messages).to.have.length(2);
    expect(stub.requests).to.have.length(1);
  });

  /** A person's token for the turns to act for, and the keys delegated from it as they stand. */
  async function asker(): Promise<{ tokenId: string; delegated(): Promise<TokenRecord[]> }> {
    const { token } = await tokens.create({
      username: 'ann',
      superuser: false,
      permissions: ['ai_ops.chat'],
      writeEnabled: true,
      expires: null,
    });
    return { tokenId: token.id, delegated: async () => (await tokens.list()).filter((each) => each.parent_id === token.id) };
  }

  it('killed mid-turn: the delegated key it held dies when another worker takes the job over, not at its expiry', async () => {
    const ann = await asker();
    child = await spawnWorker(env);
    stub.respondWith({ hold: true }, { hold: true });
    const data = await ask('my key outlives me', ann.tokenId);
    await stub.received(1);
    const [orphaned] = await ann.delegated();
    expect(orphaned?.description).to.equal(`chat turn ${data.turnId} (delegated)`);
    expect(Date.parse(orphaned!.expires!) - Date.now(), 'valid for the turn and its margin').to.be.greaterThan(60_000);
    await killed(child);

    const outcome = jobQueue(queue, ChatJobName.Turn).waitFor(chatTurnJobId(data.turnId), 30_000);
    await takeOver();
    await stub.received(2);
    const retried = await ann.delegated();
    expect(
      retried.map((each) => each.key_hash),
      'only the new attempt has a key',
    )
      .to.have.length(1)
      .and.not.include(orphaned!.key_hash);
    stub.release();
    expect(await outcome).to.deep.include({ state: 'completed' });
    expect(await ann.delegated()).to.deep.equal([]);
  });

  it('killed mid-turn twice: the job fails at the stall limit and the worker that fails it ends the last key', async () => {
    const ann = await asker();
    stub.respondWith({ hold: true }, { hold: true });
    child = await spawnWorker(env);
    const data = await ask('nobody finishes me', ann.tokenId);
    await stub.received(1);
    await killed(child);
    child = await spawnWorker(env);
    await stub.received(2);
    const [second] = await ann.delegated();
    expect(second, "the second attempt's key").to.not.equal(undefined);
    await killed(child);

    const outcome = await outcomeAfterTakeOver(data);
    expect(outcome).to.deep.include({ state: 'failed' });
    expect(stub.requests, 'the stall limit fails it without running it').to.have.length(2);
    await until(async () => (await ann.delegated()).length === 0, 5_000, "the second attempt's key to end");
  });
});
