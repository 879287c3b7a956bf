import { expect } from 'chai';
import type { PausedAgent } from '../../src/chat/agent/turn-types.js';
import { TurnEventsService, type ChatStreamEvent } from '../../src/chat/turn-events.service.js';
import type { TurnTextFeed, TurnTextPiece } from '../../src/chat/turn-text.port.js';
import { NotFoundError } from '../../src/kernel/errors.js';
import { chatTurnJobId, ChatJobName, type ChatProgress, type ChatTurnJob } from '../../src/chat/chat.jobs.js';
import { encodeFailure } from '../../src/kernel/jobs/job-failure.js';
import { MemoryApprovalStore } from '../support/fakes/memory-approval-store.js';
import { MemoryJobQueue } from '../support/fakes/memory-job-queue.js';

const JOB = chatTurnJobId('turn-1');
const EXPIRES = '2026-03-01T10:01:00.000Z';
const CALL = { id: 'call_1', tool: 'platform_dynamic_api_request', server: 'built-in', arguments: { method: 'POST' } };

const toolCall: ChatProgress = { type: 'tool_call', step: 1, id: 'call_0', name: 'platform_openapi_endpoint_schema', arguments: {} };
const toolResult: ChatProgress = {
  type: 'tool_result',
  step: 1,
  id: 'call_0',
  name: 'platform_openapi_endpoint_schema',
  ok: true,
  content: '{}',
};
const approvalRequired: ChatProgress = { type: 'approval_required', step: 2, approvals: [CALL], expires: EXPIRES };
const approvalDecided: ChatProgress = {
  type: 'approval_decided',
  step: 2,
  id: 'call_1',
  name: 'platform_dynamic_api_request',
  approved: true,
  decided_by: 'user-1',
};
const result = { response: 'done', sessionId: 'session-1', model: 'm', stored: true };

/** Turn text in memory: a follower gets what was written so far, then each new piece. */
class MemoryTurnText implements TurnTextFeed {
  private readonly written = new Map<string, TurnTextPiece[]>();
  private readonly followers = new Map<string, Set<(piece: TurnTextPiece) => void>>();

  async append(jobId: string, piece: TurnTextPiece): Promise<void> {
    this.written.set(jobId, [...(this.written.get(jobId) ?? []), piece]);
    for (const follower of this.followers.get(jobId) ?? []) follower(piece);
  }

  async follow(jobId: string, listener: (piece: TurnTextPiece) => void): Promise<() => void> {
    for (const piece of this.written.get(jobId) ?? []) listener(piece);
    const followers = this.followers.get(jobId) ?? new Set();
    this.followers.set(jobId, followers);
    const own = (piece: TurnTextPiece) => listener(piece);
    followers.add(own);
    return () => followers.delete(own);
  }

  following(): number {
    return [...this.followers.values()].reduce((sum, followers) => sum + followers.size, 0);
  }
}

async function eventsOver(options: { text?: MemoryTurnText } = {}) {
  const queue = new MemoryJobQueue<ChatTurnJob>();
  const approvals = new MemoryApprovalStore();
  // A minute before the wait for decisions runs out.
  const sut = new TurnEventsService({ queue, approvals, now: () => Date.parse(EXPIRES) - 60_000, ...options });
  await queue.add(
    {
      name: ChatJobName.Turn,
      data: { turnId: 'turn-1', userId: 'user-1', sessionId: 'session-1', modelId: 'model-1', generation: 0, message: 'hi' },
    },
    JOB,
  );
  const received: ChatStreamEvent[] = [];
  const open = () => sut.stream('user-1', JOB, (event) => received.push(event));
  return { sut, queue, approvals, received, open, names: () => received.map(({ event }) => event) };
}

describe(TurnEventsService.name, () => {
  it('streams queued → active → approval_required → queued (parked) → active → approval_decided → completed, each event once', async () => {
    const { queue, received, open, names } = await eventsOver();
    const stream = await open();
    queue.activate(JOB);
    queue.report(JOB, { events: [toolCall] });
    queue.report(JOB, { events: [toolCall, toolResult, approvalRequired] });
    queue.park(JOB);
    queue.activate(JOB);
    queue.report(JOB, { events: [toolCall, toolResult, approvalRequired, approvalDecided] });
    queue.complete(JOB, result);
    await stream.done;
    expect(names()).to.deep.equal([
      'queued',
      'active',
      'tool_call',
      'tool_result',
      'approval_required',
      'queued',
      'active',
      'approval_decided',
      'completed',
    ]);
    expect(received[4]).to.deep.equal({ event: 'approval_required', data: { job_id: JOB, ...approvalRequired } });
    expect(received.at(-1)).to.deep.equal({
      event: 'completed',
      data: { job_id: JOB, session_id: 'session-1', model: 'm', response: 'done' },
    });
    expect(queue.listening(), 'the stream stops listening once the turn is over').to.equal(0);
    queue.report(JOB, { events: [toolCall] });
    expect(received).to.have.length(9);
  });

  it('replays to a client connecting late what the turn reported before, then goes on with what is new', async () => {
    const { queue, received, open, names } = await eventsOver();
    queue.activate(JOB);
    queue.report(JOB, { events: [toolCall, toolResult] });
    const stream = await open();
    expect(names()).to.deep.equal(['active', 'tool_call', 'tool_result']);
    expect(received[1]).to.deep.equal({ event: 'tool_call', data: { job_id: JOB, ...toolCall } });
    queue.report(JOB, { events: [toolCall, toolResult, approvalRequired] });
    expect(names()).to.deep.equal(['active', 'tool_call', 'tool_result', 'approval_required']);
    stream.close();
    await stream.done;
  });

  it('replays a finished turn whole and ends: its reports, then completed, or failed with its error', async () => {
    const completed = await eventsOver();
    completed.queue.report(JOB, { events: [toolCall, toolResult] });
    completed.queue.complete(JOB, result);
    await (
      await completed.open()
    ).done;
    expect(completed.names()).to.deep.equal(['tool_call', 'tool_result', 'completed']);
    expect(completed.queue.listening()).to.equal(0);

    const failed = await eventsOver();
    failed.queue.fail(JOB, encodeFailure({ kind: 'upstream', message: 'the provider rejected the key' }));
    await (
      await failed.open()
    ).done;
    expect(failed.received).to.deep.equal([{ event: 'failed', data: { job_id: JOB, error: 'the provider rejected the key' } }]);

    const stalled = await eventsOver();
    stalled.queue.fail(JOB, 'job stalled more than allowable limit');
    await (
      await stalled.open()
    ).done;
    expect(stalled.received).to.deep.equal([{ event: 'failed', data: { job_id: JOB, error: 'the chat turn failed' } }]);
  });

  it('streams the text written so far, then as it comes, before completed', async () => {
    const text = new MemoryTurnText();
    const { queue, received, open, names } = await eventsOver({ text });
    queue.activate(JOB);
    await text.append(JOB, { step: 1, reset: true, text: 'Hello' });
    const stream = await open();
    await text.append(JOB, { step: 1, reset: false, text: ', world' });
    queue.complete(JOB, result);
    await stream.done;
    expect(names()).to.deep.equal(['active', 'delta', 'delta', 'completed']);
    expect(received[1]).to.deep.equal({ event: 'delta', data: { job_id: JOB, step: 1, reset: true, text: 'Hello' } });
    expect(text.following()).to.equal(0);
  });

  it('sends the text and the reports that came before, then completed, when the turn completes while the stream opens', async () => {
    const text = new MemoryTurnText();
    const { queue, received, open, names } = await eventsOver({ text });
    queue.activate(JOB);
    queue.report(JOB, { events: [toolCall, toolResult] });
    await text.append(JOB, { step: 2, reset: true, text: 'done' });
    // The turn's completion is heard while the stream still reads the text written so far.
    const follow = text.follow.bind(text);
    text.follow = async (jobId, listener) => {
      queue.complete(JOB, result);
      return follow(jobId, listener);
    };
    await (
      await open()
    ).done;
    expect(names()).to.deep.equal(['active', 'tool_call', 'tool_result', 'delta', 'completed']);
    expect(received[3]).to.deep.equal({ event: 'delta', data: { job_id: JOB, step: 2, reset: true, text: 'done' } });
    expect(text.following()).to.equal(0);
  });

  it("replays to a late stream the text and the reports in the order the turn wrote them: a step's text, its calls, their results, the next step", async () => {
    const text = new MemoryTurnText();
    const { queue, received, open } = await eventsOver({ text });
    queue.activate(JOB);
    await text.append(JOB, { step: 1, reset: true, text: 'Looking it up.' });
    queue.report(JOB, { events: [toolCall, toolResult] });
    await text.append(JOB, { step: 2, reset: true, text: 'Found' });
    const stream = await open();
    await text.append(JOB, { step: 2, reset: false, text: ' it.' });
    queue.complete(JOB, result);
    await stream.done;
    expect(received.map(({ event, data }) => `${event}:${'step' in data ? data.step : ''}`)).to.deep.equal([
      'active:',
      'delta:1',
      'tool_call:1',
      'tool_result:1',
      'delta:2',
      'delta:2',
      'completed:',
    ]);
  });

  it("does not find another user's turn, and keeps no listener for it", async () => {
    const text = new MemoryTurnText();
    const { sut, queue, received } = await eventsOver({ text });
    const error = await sut
      .stream('user-2', JOB, (event) => received.push(event))
      .then(
        () => expect.fail('not found'),
        (refused: Error) => refused,
      );
    expect(error).to.be.instanceOf(NotFoundError);
    expect(received).to.deep.equal([]);
    expect(queue.listening()).to.equal(0);
    expect(text.following()).to.equal(0);
  });

  it('ends every open stream at shutdown', async () => {
    const { sut, queue, open } = await eventsOver();
    const streams = [await open(), await open()];
    sut.closeStreams();
    await Promise.all(streams.map((stream) => stream.done));
    expect(queue.listening()).to.equal(0);
  });

  it('answers the state of a turn: awaiting_approval with its undecided calls while parked, then its answer or error', async () => {
    const { sut, queue, approvals } = await eventsOver();
    const view = { job_id: JOB, session_id: 'session-1', message: 'hi' };
    expect(await sut.job('user-1', JOB)).to.deep.equal({ ...view, status: 'queued' });
    const paused: PausedAgent = { step: 2, messages: [], usage: { input_tokens: 0, output_tokens: 0 }, ran: {}, pending: [CALL] };
    await approvals.open('turn-1', { paused, expiresAt: Date.parse(EXPIRES) }, 120_000, 'user-1');
    expect(await sut.job('user-1', JOB)).to.deep.equal({
      ...view,
      status: 'awaiting_approval',
      approvals: [CALL],
      approval_expires: EXPIRES,
    });
    queue.activate(JOB);
    expect(await sut.job('user-1', JOB)).to.deep.equal({ ...view, status: 'active' });
    queue.complete(JOB, result);
    expect(await sut.job('user-1', JOB)).to.deep.equal({ ...view, status: 'completed', model: 'm', response: 'done' });
    await sut.job('user-2', JOB).then(
      () => expect.fail('not found'),
      (error: Error) => expect(error).to.be.instanceOf(NotFoundError),
    );
  });
});
