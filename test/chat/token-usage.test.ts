import { expect } from 'chai';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createMetrics } from '../../src/kernel/metrics/metrics.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { listUsage } from '../../src/cli/commands/usage.js';
import { openAiCompletion } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { startChatHarness, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const USAGE = '/api/plugins/ai-ops/usage/';
/** What the OpenAI stub reports for every call. */
const CALL_TOKENS = { input_tokens: 11, output_tokens: 7 };

const LOOKUP: ChatTools = {
  list: async () => [{ name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: {} } }],
  call: async () => 'found',
  review: async () => ({ server: 'test', needsApproval: false }),
};

describe('Token usage and budgets (API + queue + workers + provider stub)', () => {
  let redis: TestRedis;
  let sut: ChatHarness | undefined;
  before(async () => {
    redis = await startTestRedis();
  });
  afterEach(async () => {
    await sut?.close();
    sut = undefined;
  });
  after(async () => {
    await redis.destroy();
  });

  it("keeps each call's tokens per user and model; the API, the CLI and the metrics agree", async () => {
    const metrics = createMetrics();
    sut = await startChatHarness(redis, { metrics });
    const model = await sut.model({ price_per_million_input_tokens: 2, price_per_million_output_tokens: 10 });
    const alice = await sut.token('alice');
    const bob = await sut.token('bob');
    const admin = await sut.token('admin', ['ai_ops.view_usage']);
    for (const message of ['one', 'two']) expect((await sut.call('POST', CHAT, { key: alice, body: { message } })).status).to.equal(200);
    expect((await sut.call('POST', CHAT, { key: bob, body: { message: 'three' } })).status).to.equal(200);

    const own = await sut.call('GET', USAGE, { key: alice });
    expect(own.status).to.equal(200);
    expect(own.body.days).to.have.length(1);
    expect(own.body.days[0].rows).to.deep.equal([
      {
        user: 'alice',
        user_id: own.body.days[0].rows[0].user_id,
        model: model.name,
        provider: 'openai',
        input_tokens: 22,
        output_tokens: 14,
        cost: (22 * 2 + 14 * 10) / 1e6,
      },
    ]);
    expect(own.body.budgets, 'no budget is set').to.deep.equal([]);
    expect((await sut.call('GET', `${USAGE}?user=alice`, { key: bob })).status).to.equal(403);

    const everyone = await sut.call('GET', USAGE, { key: admin });
    expect(everyone.body.days[0].rows.map((row: { user: string }) => row.user)).to.deep.equal(['alice', 'bob']);
    expect(everyone.body.total).to.include({ input_tokens: 33, output_tokens: 21 });
    expect((await sut.call('GET', `${USAGE}?user=bob`, { key: admin })).body.total).to.include({ input_tokens: 11, output_tokens: 7 });
    expect((await sut.call('GET', `${USAGE}?since=2000-01-01&until=2000-01-02`, { key: admin })).body.days).to.deep.equal([]);

    let printed = '';
    const out = { write: (text: string) => (printed += text) } as unknown as NodeJS.WritableStream;
    expect(await listUsage(sut.config, { json: true }, out)).to.equal(0);
    expect(JSON.parse(printed).total).to.deep.equal(everyone.body.total);

    const counted = (await metrics.providerTokens.get()).values;
    const tokens = (direction: string) => counted.find((value) => value.labels.direction === direction)?.value;
    expect([tokens('input'), tokens('output')]).to.deep.equal([33, 21]);
  });

  it("refuses a turn past the daily budget with 429 and Retry-After; a model's own budget narrows it, never lifts it", async () => {
    sut = await startChatHarness(redis, { env: { CHAT_TOKEN_BUDGET_PER_DAY: String(2 * 18) } });
    await sut.model();
    const roomy = await sut.model({ is_default: false, daily_token_budget: 1_000 });
    const tight = await sut.model({ is_default: false, daily_token_budget: 18 });
    const alice = await sut.token('alice');
    expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'one', model: tight.name } })).status).to.equal(200);
    const narrowed = await sut.call('POST', CHAT, { key: alice, body: { message: 'two', model: tight.name } });
    expect(narrowed.status, 'the model spent its own budget, the one over every model has room').to.equal(429);
    expect(narrowed.body.detail).to.include(`on model '${tight.name}' (18 tokens)`);
    expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'two' } })).status).to.equal(200);
    const refused = await sut.call('POST', CHAT, { key: alice, body: { message: 'three' } });
    expect(refused.status).to.equal(429);
    expect(refused.body.detail).to.include('daily token budget (36 tokens)');
    const seconds = Number(refused.headers.get('retry-after'));
    const now = new Date();
    const midnight = Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1_000);
    expect(seconds).to.be.within(midnight - 5, midnight + 1);
    const lifted = await sut.call('POST', CHAT, { key: alice, body: { message: 'four', model: roomy.name } });
    expect(lifted.status, "a roomy model's budget does not lift the one over every model").to.equal(429);
    expect(lifted.body.detail).to.include('daily token budget (36 tokens)');
    // Another user's budget is their own.
    const bob = await sut.token('bob');
    expect((await sut.call('POST', CHAT, { key: bob, body: { message: 'five' } })).status).to.equal(200);
    // The usage answer says what is left, whatever its filters: the model's own turns count against the budget over every model too.
    expect((await sut.call('GET', `${USAGE}?model=${roomy.name}`, { key: alice })).body.budgets).to.deep.equal([
      { model: null, limit: 36, spent: 36, left: 0 },
      { model: roomy.name, limit: 1_000, spent: 0, left: 1_000 },
      { model: tight.name, limit: 18, spent: 18, left: 0 },
    ]);
    expect((await sut.call('GET', USAGE, { key: bob })).body.budgets[0]).to.deep.equal({ model: null, limit: 36, spent: 18, left: 18 });
  });

  it('holds 20 turns asked at once to the budget and one step, and refuses the rest with 429 and Retry-After', async () => {
    const budget = 100;
    sut = await startChatHarness(redis, { env: { CHAT_TOKEN_BUDGET_PER_DAY: String(budget) } });
    // A step's worst case: 45 characters of prompt (15 tokens) and 7 of answer, over the 18 the stub reports.
    await sut.model({ model_config: { max_tokens: 7 } });
    const alice = await sut.token('alice');
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        sut!.call('POST', CHAT, { key: alice, body: { message: `question ${String(index).padStart(2, '0')}: ${'x'.repeat(32)}` } }),
      ),
    );
    const statuses = replies.map(({ status }) => status);
    expect(
      statuses.filter((status) => status !== 200 && status !== 429),
      JSON.stringify(statuses),
    ).to.deep.equal([]);
    expect(statuses).to.include(200).and.to.include(429);
    for (const refused of replies.filter(({ status }) => status === 429)) expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
    const { total } = (await sut.call('GET', USAGE, { key: alice })).body;
    expect(total.input_tokens + total.output_tokens).to.be.at.most(budget + 15 + 7);
  });

  it('stops a turn that crosses the budget after its current step, with a clear message', async () => {
    sut = await startChatHarness(redis, { tools: LOOKUP, env: { CHAT_TOKEN_BUDGET_PER_DAY: '18' } });
    await sut.model();
    const alice = await sut.token('alice');
    sut.stub.respondWith({ body: openAiCompletion('', [{ id: 'call_1', name: 'lookup', arguments: {} }]) });
    const answered = await sut.call('POST', CHAT, { key: alice, body: { message: 'look it up' } });
    expect(answered.status).to.equal(200);
    expect(answered.body.response).to.include('daily token budget (18 tokens) was reached during this turn');
    // The step's tool call ran; the model was not asked again.
    expect(sut.stub.requests).to.have.length(1);
    expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'again' } })).status).to.equal(429);
  });

  describe('with two workers', () => {
    let second: RunningWorkers | undefined;
    afterEach(async () => {
      await second?.close();
      second = undefined;
    });

    it("counts every worker's calls against one budget", async () => {
      sut = await startChatHarness(redis, { env: { CHAT_TOKEN_BUDGET_PER_DAY: String(4 * 18), CHAT_WORKER_CONCURRENCY: '1' } });
      second = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Chat], concurrency: 1, apiUrl: sut.baseUrl });
      await second.ready();
      // Steps of a few tokens at most: four turns' holds fit the budget at once.
      await sut.model({ model_config: { max_tokens: 7 } });
      const alice = await sut.token('alice');
      sut.stub.respondWith({ hold: true }, { hold: true });
      const accepted = await Promise.all(
        ['one', 'two', 'three', 'four'].map((message) =>
          sut!.call('POST', CHAT, { key: alice, body: { message }, headers: { prefer: 'respond-async' } }),
        ),
      );
      // Both workers hold a turn at once.
      await sut.stub.received(2);
      sut.stub.release();
      for (const { body } of accepted)
        await until(
          async () => (await sut!.call('GET', `${CHAT}jobs/${body.job_id}/`, { key: alice })).body.status === 'completed',
          10_000,
          `turn ${body.job_id}`,
        );
      const usage = await sut.call('GET', USAGE, { key: alice });
      expect(usage.body.total).to.include({ input_tokens: 4 * CALL_TOKENS.input_tokens, output_tokens: 4 * CALL_TOKENS.output_tokens });
      expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'five' } })).status).to.equal(429);
    });
  });
});
