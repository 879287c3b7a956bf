import { expect } from 'chai';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import type { TurnTextPiece } from '../../src/chat/turn-text.port.js';
import { openAiCompletion, replyFor } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startChatHarness, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const ANSWER = 'Router r1 is in ams, rack 4; it was installed in 2021 and is up.';

/** An event and its data (parsed JSON whose shape the assertions check). */
type Event = [string, Record<string, unknown>];

const LOOKUP: ChatTools = {
  list: async () => [
    { name: 'lookup', description: 'Find a device', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
  ],
  call: async () => 'r1 is in ams',
  review: async () => ({ server: 'test', needsApproval: false }),
};

/** An event stream read as it arrives: `until` resolves once an event satisfying it came. */
function follow(response: Response) {
  const events: Event[] = [];
  const waiters: { test: (event: Event) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!event || data === undefined) continue;
        const parsed: Event = [event, JSON.parse(data)];
        events.push(parsed);
        for (const waiter of waiters.filter((w) => w.test(parsed))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    }
    return events;
  })();
  return {
    events,
    done,
    until: (test: (event: Event) => boolean) =>
      events.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve })),
  };
}

/** Each step's text as a reader builds it from `delta` events (a reset replaces, otherwise append). */
function stepTexts(events: Event[]): Map<number, string> {
  const texts = new Map<number, string>();
  for (const [event, data] of events) {
    if (event !== 'delta') continue;
    const piece = data as unknown as TurnTextPiece;
    texts.set(piece.step, (piece.reset ? '' : (texts.get(piece.step) ?? '')) + piece.text);
  }
  return texts;
}

describe('Chat API: answers streamed as the model writes them', function () {
  this.timeout(30_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let alice: string;

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, { env: { CHAT_STREAM_INTERVAL_MS: '20' }, tools: LOOKUP });
    await sut.model();
    alice = await sut.token('alice');
  });
  after(async () => {
    await sut?.close();
    await redis?.destroy();
  });

  const open = (jobId: string) =>
    fetch(`${sut.baseUrl}${CHAT}jobs/${jobId}/events`, { headers: { authorization: `Token ${alice}` } }).then(follow);

  it('sends delta events between active and completed; a stream opened mid-answer replays the text so far, then continues, without gap or duplicate', async () => {
    sut.stub.respondWith({ ...replyFor('openai', ANSWER), pauseAfter: 5 });
    const accepted = await sut.call('POST', CHAT, { key: alice, body: { message: 'where is r1?' }, headers: { prefer: 'respond-async' } });
    const early = await open(accepted.body.job_id);
    // The model has written five words and waits: they are out before the answer is.
    await early.until(
      ([event, data]) => event === 'delta' && (stepTexts(early.events).get(1) ?? '').split(' ').length >= 5 && data.step === 1,
    );
    expect(early.events.map(([event]) => event)).to.not.include('completed');
    const partial = stepTexts(early.events).get(1)!;
    expect(ANSWER.startsWith(partial)).to.equal(true);

    const late = await open(accepted.body.job_id);
    await late.until(([event]) => event === 'delta');
    expect(stepTexts(late.events).get(1)).to.equal(partial);

    sut.stub.release();
    const [first, second] = await Promise.all([early.done, late.done]);
    for (const events of [first, second]) {
      const names = events.map(([event]) => event);
      expect(names.at(-1)).to.equal('completed');
      expect(names.indexOf('delta')).to.be.lessThan(names.indexOf('completed'));
      expect(stepTexts(events).get(1)).to.equal(ANSWER);
      expect(events.at(-1)![1].response).to.equal(ANSWER);
    }
    // Gathered into a few pieces, not one per word.
    expect(first.filter(([event]) => event === 'delta').length).to.be.within(2, 12);
    const session = await sut.call('GET', `${CHAT}sessions/${accepted.body.session_id}/`, { key: alice });
    expect(session.body.messages.at(-1).content).to.equal(ANSWER);
  });

  it('replays the whole text to a stream opened after the turn ended, before completed', async () => {
    const answered = await sut.call('POST', CHAT, { key: alice, body: { message: 'and r2?' } });
    expect(answered.status).to.equal(200);
    const events = await (await open(answered.body.job_id)).done;
    expect(events.map(([event]) => event).at(-1)).to.equal('completed');
    expect(stepTexts(events).get(1)).to.equal('echo: and r2?');
  });

  it('streams the text of a step with tool calls under its own step number, tool events carry theirs', async () => {
    const withText = openAiCompletion('', [{ id: 'call_1', name: 'lookup', arguments: { name: 'r1' } }]) as {
      choices: { message: { content: string | null } }[];
    };
    withText.choices[0]!.message.content = 'Let me look that up.';
    sut.stub.respondWith({ body: withText });
    const answered = await sut.call('POST', CHAT, { key: alice, body: { message: 'look r1 up' } });
    const events = await (await open(answered.body.job_id)).done;
    const texts = stepTexts(events);
    expect(texts.get(1)).to.equal('Let me look that up.');
    expect(texts.get(2)).to.equal(answered.body.response);
    expect(events.find(([event]) => event === 'tool_call')?.[1]).to.include({ step: 1, id: 'call_1' });
    expect(events.find(([event]) => event === 'tool_result')?.[1]).to.include({ step: 1, id: 'call_1' });
  });
});
