import { expect } from 'chai';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { errorReply, openAiCompletion } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { readEvents, startChatHarness, STUB_KEY, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';

/** One tool the stub model asks for in the tool tests. */
const DEVICE_LOOKUP: ChatTools = {
  list: async () => [
    { name: 'device_lookup', description: 'Find a device', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
  ],
  call: async (name, args) => `${name} found ${String(args.name)} in ams`,
  review: async () => ({ server: 'test', needsApproval: false }),
};

describe('Chat API (API + queue + worker + provider stub)', () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });

  describe('turns', () => {
    let sut: ChatHarness;
    let alice: string;
    let bob: string;
    beforeEach(async () => {
      sut = await startChatHarness(redis);
      alice = await sut.token('alice');
      bob = await sut.token('bob');
    });
    afterEach(async () => {
      await sut.close();
    });

    it('answers a turn synchronously and sends the history with the next one', async () => {
      const model = await sut.model({ system_prompt: 'Be brief.', temperature: 0.4, model_config: { max_tokens: 50 } });
      const first = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ response: 'echo: hello', model: model.name });
      expect(first.body.session_id).to.be.a('string');
      expect(first.body.job_id).to.match(/^chat-/);

      const second = await sut.call('POST', CHAT, { key: alice, body: { message: 'and again', session_id: first.body.session_id } });
      expect(second.status).to.equal(200);
      const request = sut.stub.requests[1]!;
      expect(request.headers.authorization).to.equal(`Bearer ${STUB_KEY}`);
      expect(request.body).to.include({ model: model.name, temperature: 0.4, max_tokens: 50 });
      expect(request.body.messages).to.deep.equal([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'echo: hello' },
        { role: 'user', content: 'and again' },
      ]);

      const session = await sut.call('GET', `${CHAT}sessions/${first.body.session_id}/`, { key: alice });
      expect(session.status).to.equal(200);
      expect(session.body).to.include({ id: first.body.session_id, title: 'hello', turns: 2, model: model.name });
      expect(session.body.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`)).to.deep.equal([
        'user:hello',
        'assistant:echo: hello',
        'user:and again',
        'assistant:echo: and again',
      ]);
    });

    it('queues with Prefer: respond-async, then the job can be polled and streamed', async () => {
      await sut.model();
      sut.stub.respondWith({ hold: true });
      const accepted = await sut.call('POST', CHAT, { key: alice, body: { message: 'later' }, headers: { prefer: 'respond-async' } });
      expect(accepted.status).to.equal(202);
      expect(accepted.body.status_url).to.equal(`${CHAT}jobs/${accepted.body.job_id}/`);
      expect(accepted.headers.get('location')).to.equal(accepted.body.status_url);

      await sut.stub.received(1);
      const running = await sut.call('GET', `${CHAT}jobs/${accepted.body.job_id}/`, { key: alice });
      expect(running.body).to.deep.equal({
        job_id: accepted.body.job_id,
        status: 'active',
        session_id: accepted.body.session_id,
        message: 'later',
      });

      const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${accepted.body.job_id}/events`, {
        headers: { authorization: `Token ${alice}` },
      });
      expect(stream.status).to.equal(200);
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = readEvents(stream);
      sut.stub.release();
      const received = await events;
      expect(received.map(([event]) => event).filter((event) => event !== 'delta')).to.deep.equal(['active', 'completed']);
      expect(received.at(-1)![1]).to.include({
        job_id: accepted.body.job_id,
        session_id: accepted.body.session_id,
        response: 'echo: later',
      });

      const done = await sut.call('GET', `${CHAT}jobs/${accepted.body.job_id}/`, { key: alice });
      expect(done.body).to.include({ status: 'completed', response: 'echo: later' });
    });

    it('stops a running turn: its stream and status say so, nothing is stored, and it cannot be stopped twice', async () => {
      await sut.model();
      sut.stub.respondWith({ hold: true });
      const accepted = await sut.call('POST', CHAT, {
        key: alice,
        body: { message: 'a long question' },
        headers: { prefer: 'respond-async' },
      });
      const job = `${CHAT}jobs/${accepted.body.job_id}/`;
      await sut.stub.received(1);
      const stream = await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${alice}` } });
      const events = readEvents(stream);

      expect((await sut.call('DELETE', job, { key: bob })).status, "another user's turn").to.equal(404);
      const stopped = await sut.call('DELETE', job, { key: alice });
      expect(stopped.status).to.equal(204);
      const received = await events;
      expect(received.at(-1)).to.deep.equal(['failed', { job_id: accepted.body.job_id, error: 'the turn was stopped' }]);
      expect((await sut.call('GET', job, { key: alice })).body).to.include({ status: 'failed', error: 'the turn was stopped' });
      expect((await sut.call('GET', `${CHAT}sessions/${accepted.body.session_id}/`, { key: alice })).status).to.equal(404);
      const again = await sut.call('DELETE', job, { key: alice });
      expect(again.status).to.equal(409);
      expect(again.body.detail).to.match(/over already/);

      // The worker carries on with the next turn.
      sut.stub.release();
      expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'next' } })).body).to.include({ response: 'echo: next' });
    });

    it("keeps users apart: another user's job and session are 404, and lists are per user", async () => {
      await sut.model();
      const mine = await sut.call('POST', CHAT, { key: alice, body: { message: 'private' } });
      expect((await sut.call('GET', `${CHAT}jobs/${mine.body.job_id}/`, { key: bob })).status).to.equal(404);
      expect((await sut.call('GET', `${CHAT}jobs/${mine.body.job_id}/events/`, { key: bob })).status).to.equal(404);
      expect((await sut.call('GET', `${CHAT}sessions/${mine.body.session_id}/`, { key: bob })).status).to.equal(404);
      expect((await sut.call('DELETE', `${CHAT}sessions/${mine.body.session_id}/`, { key: bob })).status).to.equal(404);
      expect((await sut.call('GET', `${CHAT}sessions/`, { key: bob })).body).to.deep.include({ count: 0, results: [] });

      // Bob reusing Alice's session id gets a fresh session of his own.
      await sut.call('POST', CHAT, { key: bob, body: { message: 'mine now', session_id: mine.body.session_id } });
      expect(sut.stub.requests.at(-1)!.body.messages).to.deep.equal([{ role: 'user', content: 'mine now' }]);
      const list = await sut.call('GET', `${CHAT}sessions/`, { key: alice });
      expect(list.body.count).to.equal(1);
      expect(list.body.results[0]).to.include({ id: mine.body.session_id, turns: 1, title: 'private' });
    });

    it('clear really clears: the session is gone and the next turn starts without history', async () => {
      await sut.model();
      const first = await sut.call('POST', CHAT, { key: alice, body: { message: 'remember 42' } });
      const sessionId = first.body.session_id as string;
      expect((await sut.call('DELETE', `${CHAT}sessions/${sessionId}/`, { key: alice })).status).to.equal(204);
      expect((await sut.call('GET', `${CHAT}sessions/${sessionId}/`, { key: alice })).status).to.equal(404);
      await sut.call('POST', CHAT, { key: alice, body: { message: 'what number?', session_id: sessionId } });
      expect(sut.stub.requests.at(-1)!.body.messages).to.deep.equal([{ role: 'user', content: 'what number?' }]);
    });

    it('renames a session; later turns keep the title; another user cannot rename it', async () => {
      await sut.model();
      const first = await sut.call('POST', CHAT, { key: alice, body: { message: 'which sites lack devices?' } });
      const sessionId = first.body.session_id as string;
      const renamed = await sut.call('PATCH', `${CHAT}sessions/${sessionId}/`, { key: alice, body: { title: '  Empty sites  ' } });
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.include({ id: sessionId, title: 'Empty sites', turns: 1 });
      await sut.call('POST', CHAT, { key: alice, body: { message: 'and racks?', session_id: sessionId } });
      expect((await sut.call('GET', `${CHAT}sessions/${sessionId}/`, { key: alice })).body).to.include({ title: 'Empty sites', turns: 2 });

      expect((await sut.call('PATCH', `${CHAT}sessions/${sessionId}/`, { key: bob, body: { title: 'mine' } })).status).to.equal(404);
      expect((await sut.call('PATCH', `${CHAT}sessions/never-asked/`, { key: alice, body: { title: 'x' } })).status).to.equal(404);
      const blank = await sut.call('PATCH', `${CHAT}sessions/${sessionId}/`, { key: alice, body: { title: '   ' } });
      expect(blank.status).to.equal(400);
      expect(blank.body).to.have.property('title');
      expect((await sut.call('GET', `${CHAT}sessions/`, { key: bob })).body.count).to.equal(0);
    });

    it('offers the chat-usable model names to a user without ai_ops.view_llmmodel, and nothing about endpoints or secrets', async () => {
      await sut.model({ name: 'small', is_default: false, description: 'fast' });
      await sut.model({ name: 'large' });
      expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key: alice })).status).to.equal(403);
      const models = await sut.call('GET', `${CHAT}models/`, { key: alice });
      expect(models.status).to.equal(200);
      expect(models.body).to.deep.equal({
        count: 2,
        next: null,
        previous: null,
        results: [
          { name: 'large', provider: 'openai', description: '', is_default: true },
          { name: 'small', provider: 'openai', description: 'fast', is_default: false },
        ],
      });
      const viewer = await sut.token('viewer', ['ai_ops.view_llmmodel']);
      expect((await sut.call('GET', `${CHAT}models/`, { key: viewer })).status).to.equal(403);
    });

    it('does not store a turn that was running when its session was cleared', async () => {
      await sut.model();
      const first = await sut.call('POST', CHAT, { key: alice, body: { message: 'one' } });
      sut.stub.respondWith({ hold: true });
      const pending = await sut.call('POST', CHAT, {
        key: alice,
        body: { message: 'two', session_id: first.body.session_id },
        headers: { prefer: 'respond-async' },
      });
      await sut.stub.received(2);
      expect((await sut.call('DELETE', `${CHAT}sessions/${first.body.session_id}/`, { key: alice })).status).to.equal(204);
      const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${pending.body.job_id}/events/`, {
        headers: { authorization: `Token ${alice}` },
      });
      const events = readEvents(stream);
      sut.stub.release();
      expect((await events).at(-1)?.[0]).to.equal('completed');
      expect((await sut.call('GET', `${CHAT}sessions/${first.body.session_id}/`, { key: alice })).status).to.equal(404);
    });

    it('answers 502 naming the secret, never its value, when the provider rejects the key', async () => {
      process.env[sut.secret.variable] = 'sk-wrong-value-do-not-leak';
      await sut.model();
      const failed = await sut.call('POST', CHAT, { key: alice, body: { message: 'hi' } });
      expect(failed.status).to.equal(502);
      expect(failed.body.detail).to.include(`the provider rejected the API key in secret '${sut.secret.name}'`);
      expect(JSON.stringify(failed.body)).to.not.include('sk-wrong-value-do-not-leak');
      expect(sut.stub.requests).to.have.length(1);
    });

    it('answers 502 when the secret cannot be read, naming the secret and where it should be', async () => {
      delete process.env[sut.secret.variable];
      await sut.model();
      const failed = await sut.call('POST', CHAT, { key: alice, body: { message: 'hi' } });
      expect(failed.status).to.equal(502);
      expect(failed.body.detail).to.include(
        `secret '${sut.secret.name}' could not be read: environment variable ${sut.secret.variable} is not set`,
      );
      expect(sut.stub.requests).to.have.length(0);
    });

    it('retries a turn whose provider answered 503, and the reply comes from the retry', async () => {
      await sut.model();
      sut.stub.respondWith(errorReply('openai', 503, 'busy'), errorReply('openai', 503, 'busy'), errorReply('openai', 503, 'still busy'));
      const answered = await sut.call('POST', CHAT, { key: alice, body: { message: 'persist' } });
      expect(answered.status).to.equal(200);
      expect(answered.body.response).to.equal('echo: persist');
      const session = await sut.call('GET', `${CHAT}sessions/${answered.body.session_id}/`, { key: alice });
      expect(session.body.turns).to.equal(1);
    });

    it('explains how to create a model when none is configured (409) and rejects an unknown one (400)', async () => {
      const none = await sut.call('POST', CHAT, { key: alice, body: { message: 'hi' } });
      expect(none.status).to.equal(409);
      expect(none.body.detail).to.include('POST /api/plugins/ai-ops/llm-models/');
      const unknown = await sut.call('POST', CHAT, { key: alice, body: { message: 'hi', model: 'nope' } });
      expect(unknown.status).to.equal(400);
      expect(unknown.body).to.deep.equal({ model: ["No LLM model is named 'nope'."] });
    });

    it('validates the body and needs the ai_ops.chat permission', async () => {
      await sut.model();
      expect((await sut.call('POST', CHAT, { key: alice, body: { message: '' } })).status).to.equal(400);
      expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'x'.repeat(32_001) } })).status).to.equal(400);
      expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'hi', session_id: 'a:b' } })).status).to.equal(400);
      const viewer = await sut.token('carol', ['ai_ops.view_llmmodel']);
      const refused = await sut.call('POST', CHAT, { key: viewer, body: { message: 'hi' } });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.include('ai_ops.chat');
      expect((await sut.call('GET', `${CHAT}sessions/`, { key: viewer })).status).to.equal(403);
    });

    it('returns the same turn for a repeated Idempotency-Key', async () => {
      await sut.model();
      const first = await sut.call('POST', CHAT, { key: alice, body: { message: 'once' }, headers: { 'idempotency-key': 'k-1' } });
      const again = await sut.call('POST', CHAT, { key: alice, body: { message: 'once' }, headers: { 'idempotency-key': 'k-1' } });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(sut.stub.requests).to.have.length(1);
    });

    it('answers 422 to a repeated Idempotency-Key with a different request, and asks nothing', async () => {
      await sut.model();
      const first = await sut.call('POST', CHAT, {
        key: alice,
        body: { message: 'first question' },
        headers: { 'idempotency-key': 'k-reused' },
      });
      expect(first.status).to.equal(200);
      const asked = sut.stub.requests.length;
      for (const body of [{ message: 'another question' }, { message: 'first question', session_id: first.body.session_id }]) {
        const reused = await sut.call('POST', CHAT, { key: alice, body, headers: { 'idempotency-key': 'k-reused' } });
        expect(reused.status, JSON.stringify(body)).to.equal(422);
        expect(reused.body.detail).to.match(/Idempotency-Key was already used for a different request/);
      }
      expect(sut.stub.requests).to.have.length(asked);
    });
  });

  describe('limits and waits', () => {
    let sut: ChatHarness | undefined;
    afterEach(async () => {
      await sut?.close();
      sut = undefined;
    });

    it('answers 429 with Retry-After past the per-user rate, kept in Redis', async () => {
      sut = await startChatHarness(redis, { ratePerMinute: 2 });
      await sut.model();
      const alice = await sut.token('alice');
      const bob = await sut.token('bob');
      for (let i = 0; i < 2; i++) expect((await sut.call('POST', CHAT, { key: alice, body: { message: `m${i}` } })).status).to.equal(200);
      const limited = await sut.call('POST', CHAT, { key: alice, body: { message: 'one too many' } });
      expect(limited.status).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
      expect(limited.body.detail).to.include('2 turns per minute');
      expect((await sut.call('POST', CHAT, { key: bob, body: { message: 'my own budget' } })).status).to.equal(200);
    });

    it('answers 202 when the wait runs out, and the turn still completes', async () => {
      sut = await startChatHarness(redis, { waitMs: 100 });
      await sut.model();
      const alice = await sut.token('alice');
      sut.stub.respondWith({ hold: true });
      const slow = await sut.call('POST', CHAT, { key: alice, body: { message: 'slow one' } });
      expect(slow.status).to.equal(202);
      expect(slow.body).to.have.keys(['job_id', 'session_id', 'model', 'status_url']);
      const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${slow.body.job_id}/events/`, { headers: { authorization: `Token ${alice}` } });
      const events = readEvents(stream);
      await sut.stub.received(1);
      sut.stub.release();
      expect((await events).at(-1)).to.deep.equal([
        'completed',
        { job_id: slow.body.job_id, session_id: slow.body.session_id, model: slow.body.model, response: 'echo: slow one' },
      ]);
    });

    it('streams tool calls and their results while the model uses tools', async () => {
      sut = await startChatHarness(redis, { tools: DEVICE_LOOKUP });
      await sut.model();
      const alice = await sut.token('alice');
      sut.stub.respondWith(
        { body: openAiCompletion('', [{ id: 'call_7', name: 'device_lookup', arguments: { name: 'r1' } }]) },
        { hold: true },
      );
      const accepted = await sut.call('POST', CHAT, {
        key: alice,
        body: { message: 'where is r1?' },
        headers: { prefer: 'respond-async' },
      });
      const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${accepted.body.job_id}/events/`, {
        headers: { authorization: `Token ${alice}` },
      });
      const events = readEvents(stream);
      await sut.stub.received(2);
      sut.stub.release();
      const received = await events;
      const names = received.map(([event]) => event);
      expect(names.filter((event) => event !== 'delta').slice(-3)).to.deep.equal(['tool_call', 'tool_result', 'completed']);
      expect(received.find(([event]) => event === 'tool_call')![1]).to.include({ id: 'call_7', name: 'device_lookup' });
      expect(received.find(([event]) => event === 'tool_result')![1]).to.include({ ok: true, content: 'device_lookup found r1 in ams' });
      const followUp = sut.stub.requests[1]!.body.messages;
      expect(followUp.at(-1)).to.deep.equal({ role: 'tool', tool_call_id: 'call_7', content: 'device_lookup found r1 in ams' });
    });

    it('replays the tool calls a turn made before its event stream was opened', async () => {
      sut = await startChatHarness(redis, { tools: DEVICE_LOOKUP });
      await sut.model();
      const alice = await sut.token('alice');
      sut.stub.respondWith(
        { body: openAiCompletion('', [{ id: 'call_8', name: 'device_lookup', arguments: { name: 'r2' } }]) },
        { hold: true },
      );
      const accepted = await sut.call('POST', CHAT, {
        key: alice,
        body: { message: 'where is r2?' },
        headers: { prefer: 'respond-async' },
      });
      // The tool has run and the model is answering: only now does the client open the stream.
      await sut.stub.received(2);
      const stream = await fetch(`${sut.baseUrl}${CHAT}jobs/${accepted.body.job_id}/events`, {
        headers: { authorization: `Token ${alice}` },
      });
      const events = readEvents(stream);
      sut.stub.release();
      const names = (await events).map(([event]) => event).filter((event) => event !== 'delta');
      expect(names).to.deep.equal(['active', 'tool_call', 'tool_result', 'completed']);
    });
  });
});
