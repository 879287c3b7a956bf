import { expect } from 'chai';
import type { ModelDirectory } from '../../src/chat/model-directory.js';
import { TurnSubmissionService, type TurnSubmissionDependencies } from '../../src/chat/turn-submission.service.js';
import { addAndWait } from '../../src/kernel/jobs/add-and-wait.js';
import {
  ConflictError,
  IdempotencyKeyReusedError,
  NotFoundError,
  RateLimitedError,
  UpstreamError,
  ValidationError,
} from '../../src/kernel/errors.js';
import { ChatJobName, type ChatTurnData, type ChatTurnResult, type ChatTurnJob } from '../../src/chat/chat.jobs.js';
import { encodeFailure } from '../../src/kernel/jobs/job-failure.js';
import { MemoryApprovalStore } from '../support/fakes/memory-approval-store.js';
import { MemorySessionStore } from '../support/fakes/memory-session-store.js';
import { MemoryJobQueue } from '../support/fakes/memory-job-queue.js';

const MODEL = { id: 'model-1', name: 'm', daily_token_budget: null, model_config: {}, system_prompt: '' };

/** One model, `m`, the default. */
const oneModel: ModelDirectory = {
  byName: async (name) => (name === MODEL.name ? MODEL : null),
  defaultModel: async () => MODEL,
  all: async () => [{ name: MODEL.name, provider: 'ollama', description: '', is_default: true }],
};

function answer(data: ChatTurnData): ChatTurnResult {
  return { response: `echo: ${data.message}`, sessionId: data.sessionId, model: 'm', stored: true };
}

/**
 * A queue whose jobs finish before `add` resolves, as happens when a fast worker's completion
 * event is read before the add's reply: only a waiter listening before the add hears it.
 */
function instantQueue(): MemoryJobQueue<ChatTurnJob> {
  const queue = new MemoryJobQueue<ChatTurnJob>();
  queue.afterAdd = (jobId, data) => queue.complete(jobId, answer(data));
  return queue;
}

type Settings = Pick<TurnSubmissionDependencies, 'models' | 'limiter' | 'ratePerMinute' | 'waitMs'>;

/** The service over fakes: one default model, no rate limit, a 5 s wait unless `settings` say otherwise. */
function submission(settings: Partial<Settings> & { queue?: MemoryJobQueue<ChatTurnJob> } = {}) {
  const queue = settings.queue ?? new MemoryJobQueue<ChatTurnJob>();
  const sessions = new MemorySessionStore();
  const approvals = new MemoryApprovalStore();
  const defaults: Settings = { models: oneModel, limiter: { consume: async () => 0 }, ratePerMinute: 0, waitMs: 5_000 };
  // The clock at the epoch: the rounds below wait until a minute after it.
  const sut = new TurnSubmissionService({ ...defaults, ...settings, queue, sessions, approvals, now: () => 0 });
  return { sut, queue, sessions, approvals };
}

function refusal(attempt: Promise<unknown>): Promise<Error> {
  return attempt.then(
    () => expect.fail('the request was refused'),
    (error: Error) => error,
  );
}

describe('waiting for a job', () => {
  it('hears a chat turn that finishes before its add returns, and leaves no listener behind', async () => {
    const queue = instantQueue();
    const { sut: chat } = submission({ queue });
    const reply = await chat.send('user-1', { message: 'hi' }, { wait: true });
    expect(reply).to.include({ status: 'completed', response: 'echo: hi' });
    expect(queue.listening()).to.equal(0);
  });

  it('stops listening when the add fails', async () => {
    const queue = instantQueue();
    const failure = new Error('Redis is unreachable');
    await addAndWait(queue, 'job-1', () => Promise.reject(failure), 60_000).then(
      () => expect.fail('the add failed'),
      (error: unknown) => expect(error).to.equal(failure),
    );
    expect(queue.listening()).to.equal(0);
  });

  it('hears a job that finishes before its add returns', async () => {
    const queue = instantQueue();
    const data: ChatTurnData = { turnId: 't', userId: 'u', sessionId: 's', modelId: 'm', generation: 0, message: 'ping' };
    const outcome = await addAndWait(queue, 'job-2', () => queue.add({ name: ChatJobName.Turn, data }, 'job-2'), 5_000);
    expect(outcome).to.deep.include({ state: 'completed' });
  });
});

describe('a turn that names no model', () => {
  const chatOver = (names: string[]) =>
    submission({
      models: {
        byName: async () => null,
        defaultModel: async () => null,
        all: async () => names.map((name) => ({ name, provider: 'ollama', description: '', is_default: false })),
      },
      queue: instantQueue(),
    }).sut;
  const refusalOf = (chat: TurnSubmissionService) => refusal(chat.send('user-1', { message: 'hi' }, { wait: true }));

  it('says how to create one when there is none, and which to name when none is the default', async () => {
    const none = await refusalOf(chatOver([]));
    expect(none).to.be.instanceOf(ConflictError);
    expect(none.message).to.match(/^No LLM model is configured for chat/);
    const undecided = await refusalOf(chatOver(['llama3.1', 'gpt-4o']));
    expect(undecided).to.be.instanceOf(ConflictError);
    expect(undecided.message).to.equal(
      `No LLM model is the default. Name one in "model" ('llama3.1', 'gpt-4o'), or make one the default: PATCH /api/plugins/ai-ops/llm-models/{id}/ with {"is_default": true}.`,
    );
  });
});

describe(TurnSubmissionService.name, () => {
  it('refuses a turn past the rate limit, saying when to retry, and adds nothing', async () => {
    const asked: string[] = [];
    const { sut, queue } = submission({
      limiter: { consume: async (key) => (asked.push(key), 1_500) },
      ratePerMinute: 5,
    });
    const error = await refusal(sut.send('user-1', { message: 'hi' }, { wait: false }));
    expect(error).to.be.instanceOf(RateLimitedError);
    expect(error.message).to.equal('Chat rate limit reached (5 turns per minute); retry in 2 s.');
    expect((error as RateLimitedError).retryAfterSeconds).to.equal(2);
    expect(asked, 'the budget is per user').to.deep.equal(['user-1']);
    expect(queue.added).to.deep.equal([]);
  });

  it('refuses a model no record is named after, on the model field', async () => {
    const { sut, queue } = submission();
    const error = await refusal(sut.send('user-1', { message: 'hi', model: 'gpt-5' }, { wait: false }));
    expect(error).to.be.instanceOf(ValidationError);
    expect((error as ValidationError).fields).to.deep.equal({ model: ["No LLM model is named 'gpt-5'."] });
    expect(queue.added).to.deep.equal([]);
  });

  it('queues a turn on the named model, in a new session unless one is given, with the session generation and the asking token', async () => {
    const { sut, queue, sessions } = submission();
    await sessions.clear('user-1', 'session-1');
    const accepted = await sut.send('user-1', { message: 'hi', session_id: 'session-1', model: 'm' }, { wait: false, tokenId: 'token-1' });
    expect(accepted).to.deep.include({ status: 'accepted', session_id: 'session-1', model: 'm' });
    const [job] = queue.added;
    expect(job?.jobId).to.equal(accepted.job_id);
    expect(job?.data).to.deep.include({ userId: 'user-1', tokenId: 'token-1', sessionId: 'session-1', modelId: 'model-1', generation: 1 });
    expect(job?.data).to.not.have.property('requestDigest');

    const fresh = await sut.send('user-1', { message: 'hi' }, { wait: false });
    expect(fresh.session_id).to.match(/^[0-9a-f-]{36}$/);
    expect(fresh.job_id).to.not.equal(accepted.job_id);
  });

  it('joins the turn of a repeated Idempotency-Key instead of adding another; the key is per user', async () => {
    const { sut, queue } = submission();
    const request = { message: 'hi', session_id: 'session-1' };
    const first = await sut.send('user-1', request, { wait: false, idempotencyKey: 'key-1' });
    const again = await sut.send('user-1', request, { wait: false, idempotencyKey: 'key-1' });
    expect(again).to.deep.include({ status: 'accepted', job_id: first.job_id, session_id: 'session-1' });
    expect(queue.added).to.have.length(1);
    const someoneElse = await sut.send('user-2', request, { wait: false, idempotencyKey: 'key-1' });
    expect(someoneElse.job_id).to.not.equal(first.job_id);
  });

  it('answers a repeated key with the outcome of its turn once it is over', async () => {
    const { sut, queue } = submission();
    const first = await sut.send('user-1', { message: 'hi' }, { wait: false, idempotencyKey: 'key-1' });
    queue.complete(first.job_id, answer(queue.added[0]!.data));
    const again = await sut.send('user-1', { message: 'hi' }, { wait: true, idempotencyKey: 'key-1' });
    expect(again).to.deep.equal({
      status: 'completed',
      job_id: first.job_id,
      session_id: first.session_id,
      model: 'm',
      response: 'echo: hi',
    });
    expect(queue.added).to.have.length(1);
    expect(queue.listening()).to.equal(0);
  });

  it('refuses a repeated key with a different message, session or model, and adds nothing', async () => {
    const { sut, queue } = submission();
    await sut.send('user-1', { message: 'hi', session_id: 'session-1' }, { wait: false, idempotencyKey: 'key-1' });
    for (const changed of [
      { message: 'bye', session_id: 'session-1' },
      { message: 'hi' },
      { message: 'hi', session_id: 'session-1', model: 'm' },
    ]) {
      const error = await refusal(sut.send('user-1', changed, { wait: false, idempotencyKey: 'key-1' }));
      expect(error, JSON.stringify(changed)).to.be.instanceOf(IdempotencyKeyReusedError);
    }
    expect(queue.added).to.have.length(1);
  });

  it('answers 202 at once when the awaited turn pauses for decisions, and when a repeated key finds it paused', async () => {
    const { sut, queue, approvals } = submission({ waitMs: 60_000 });
    queue.afterAdd = (jobId) =>
      setImmediate(() =>
        queue.report(jobId, {
          events: [{ type: 'approval_required', step: 1, approvals: [], expires: new Date(60_000).toISOString() }],
        }),
      );
    const paused = await sut.send('user-1', { message: 'make a model' }, { wait: true, idempotencyKey: 'key-1' });
    expect(paused.status).to.equal('accepted');
    const turnId = queue.added[0]!.data.turnId;
    await approvals.open(turnId, { paused: pausedAgent(['call_1']), expiresAt: 60_000 }, 120_000, 'user-1');
    const again = await sut.send('user-1', { message: 'make a model' }, { wait: true, idempotencyKey: 'key-1' });
    expect(again).to.deep.include({ status: 'accepted', job_id: paused.job_id, session_id: paused.session_id });
    expect(queue.listening()).to.equal(0);
  });

  it('answers 202 when the turn does not finish within the wait', async () => {
    const { sut, queue } = submission({ waitMs: 10 });
    const reply = await sut.send('user-1', { message: 'hi' }, { wait: true });
    expect(reply).to.deep.include({ status: 'accepted', model: 'm' });
    expect(queue.listening()).to.equal(0);
  });

  it("throws a failed turn's error as the class it failed with", async () => {
    const queue = new MemoryJobQueue<ChatTurnJob>();
    queue.afterAdd = (jobId) => queue.fail(jobId, encodeFailure({ kind: 'upstream', message: 'the provider rejected the key' }));
    const { sut } = submission({ queue });
    const error = await refusal(sut.send('user-1', { message: 'hi' }, { wait: true }));
    expect(error).to.be.instanceOf(UpstreamError);
    expect(error.message).to.equal('the provider rejected the key');
  });

  it("stops the caller's unfinished turn; another user's is not found and a finished one is a conflict", async () => {
    const { sut, queue } = submission();
    const running = await sut.send('user-1', { message: 'hi' }, { wait: false });
    expect(await refusal(sut.stop('user-2', running.job_id))).to.be.instanceOf(NotFoundError);
    expect(await refusal(sut.stop('user-1', 'chat-missing'))).to.be.instanceOf(NotFoundError);
    await sut.stop('user-1', running.job_id);
    expect(queue.stopped).to.deep.equal([running.job_id]);
    queue.complete(running.job_id, answer(queue.added[0]!.data));
    const over = await refusal(sut.stop('user-1', running.job_id));
    expect(over).to.be.instanceOf(ConflictError);
    expect(over.message).to.equal('The turn is over already (completed); there is nothing to stop.');
    expect(queue.stopped).to.have.length(1);
  });
});

/** A paused agent whose step proposes calls with these ids. */
function pausedAgent(ids: string[]) {
  return {
    step: 1,
    messages: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    ran: {},
    pending: ids.map((id) => ({ id, tool: 'platform_dynamic_api_request', server: 'built-in', arguments: {} })),
  };
}
