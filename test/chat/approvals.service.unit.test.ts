import { expect } from 'chai';
import { ApprovalsService } from '../../src/chat/approvals.service.js';
import type { PausedAgent } from '../../src/chat/agent/turn-types.js';
import { ConflictError, NotFoundError, ValidationError } from '../../src/kernel/errors.js';
import { chatTurnJobId, ChatJobName, type ChatTurnJob } from '../../src/chat/chat.jobs.js';
import { turnView } from '../../src/chat/turn-jobs.js';
import { MemoryApprovalStore } from '../support/fakes/memory-approval-store.js';
import { MemoryJobQueue } from '../support/fakes/memory-job-queue.js';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const EXPIRES = NOW + 60_000;

/** A paused step proposing calls with these ids. */
function pausedAgent(ids: string[]): PausedAgent {
  return {
    step: 1,
    messages: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    ran: {},
    pending: ids.map((id) => ({ id, tool: 'platform_dynamic_api_request', server: 'built-in', arguments: { method: 'POST' } })),
  };
}

function approvalsOver() {
  const queue = new MemoryJobQueue<ChatTurnJob>();
  const rounds = new MemoryApprovalStore();
  let now = NOW;
  const sut = new ApprovalsService({ queue, approvals: rounds, now: () => now });
  /** A turn of `userId` whose step proposes calls `ids` and waits for decisions until EXPIRES; its job id. */
  const paused = async (userId: string, turnId: string, ids: string[], sessionId = 'session-1', expiresAt = EXPIRES) => {
    const jobId = chatTurnJobId(turnId);
    await queue.add(
      { name: ChatJobName.Turn, data: { turnId, userId, sessionId, modelId: 'model-1', generation: 0, message: 'make it' } },
      jobId,
    );
    await rounds.open(turnId, { paused: pausedAgent(ids), expiresAt }, 120_000, userId);
    return jobId;
  };
  return { sut, queue, rounds, paused, at: (ms: number) => void (now = ms) };
}

function refusal(attempt: Promise<unknown>): Promise<Error> {
  return attempt.then(
    () => expect.fail('the request was refused'),
    (error: Error) => error,
  );
}

describe(ApprovalsService.name, () => {
  it('records a decision with who decided, when, and the trimmed note; the turn goes on only once every call is decided', async () => {
    const { sut, queue, rounds, paused } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1', 'call_2']);
    expect(await sut.decide('user-1', jobId, [{ id: 'call_1', approve: false, note: '  not today ' }])).to.deep.equal({
      job_id: jobId,
      status: 'awaiting_approval',
    });
    expect(queue.resumed).to.deep.equal([]);
    expect((await rounds.get('turn-1'))?.decisions).to.deep.equal({
      call_1: { approved: false, note: 'not today', decided_by: 'user-1', decided_at: new Date(NOW).toISOString() },
    });
    expect(await sut.decide('user-1', jobId, [{ id: 'call_2', approve: true, note: ' ' }])).to.deep.equal({
      job_id: jobId,
      status: 'queued',
    });
    expect(queue.resumed).to.deep.equal([jobId]);
    expect((await rounds.get('turn-1'))?.decisions.call_2).to.deep.equal({
      approved: true,
      decided_by: 'user-1',
      decided_at: new Date(NOW).toISOString(),
    });
  });

  it('refuses a decision on a call id the turn does not wait on, and records none of the request', async () => {
    const { sut, queue, rounds, paused } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1']);
    const error = await refusal(
      sut.decide('user-1', jobId, [
        { id: 'call_1', approve: true },
        { id: 'call_9', approve: true },
      ]),
    );
    expect(error).to.be.instanceOf(ValidationError);
    expect((error as ValidationError).fields).to.deep.equal({ decisions: ["No proposed call of this turn waits under the id 'call_9'."] });
    expect((await rounds.get('turn-1'))?.decisions).to.deep.equal({});
    expect(queue.resumed).to.deep.equal([]);
  });

  it('refuses a call decided twice in one request', async () => {
    const { sut, rounds, paused } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1']);
    const error = await refusal(
      sut.decide('user-1', jobId, [
        { id: 'call_1', approve: true },
        { id: 'call_1', approve: false },
      ]),
    );
    expect((error as ValidationError).fields).to.deep.equal({ decisions: ["The call 'call_1' is decided twice."] });
    expect((await rounds.get('turn-1'))?.decisions).to.deep.equal({});
  });

  it("does not find another user's turn, nor a turn that does not exist", async () => {
    const { sut, rounds, paused } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1']);
    expect(await refusal(sut.decide('user-2', jobId, [{ id: 'call_1', approve: true }]))).to.be.instanceOf(NotFoundError);
    expect(await refusal(sut.decide('user-1', chatTurnJobId('turn-9'), [{ id: 'call_1', approve: true }]))).to.be.instanceOf(NotFoundError);
    expect((await rounds.get('turn-1'))?.decisions).to.deep.equal({});
  });

  it('refuses a decision that comes after the wait ran out and the turn went on without it', async () => {
    const { sut, queue, rounds, paused, at } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1']);
    at(EXPIRES + 1);
    expect(await sut.awaitingApproval('user-1'), 'no longer listed once expired').to.deep.equal([]);
    // The parked turn wakes at the expiry and settles its round: the undecided call counts as declined.
    const lapsed = { approved: false, note: 'no decision within 60 s', decided_by: null, decided_at: new Date(EXPIRES).toISOString() };
    expect(await rounds.settle('turn-1', EXPIRES + 1, lapsed)).to.have.property('state', 'settled');
    const error = await refusal(sut.decide('user-1', jobId, [{ id: 'call_1', approve: true }]));
    expect(error).to.be.instanceOf(ConflictError);
    expect(error.message).to.equal('The turn is not waiting for decisions (queued).');
    expect((await rounds.get('turn-1'))?.decisions.call_1).to.deep.equal(lapsed);
    expect(queue.resumed).to.deep.equal([]);
  });

  it('refuses a decision that comes after the wait ran out though no worker settled the round (none runs)', async () => {
    const { sut, queue, rounds, paused, at } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1', 'call_2']);
    await sut.decide('user-1', jobId, [{ id: 'call_1', approve: true }]);
    at(EXPIRES);
    const error = await refusal(sut.decide('user-1', jobId, [{ id: 'call_2', approve: true }]));
    expect(error).to.be.instanceOf(ConflictError);
    expect(error.message).to.equal(
      `The turn waited for decisions until ${new Date(EXPIRES).toISOString()}: its undecided calls count as declined.`,
    );
    expect(Object.keys((await rounds.get('turn-1'))!.decisions)).to.deep.equal(['call_1']);
    expect(queue.resumed).to.deep.equal([]);
  });

  it('shows a turn whose wait ran out as queued with nothing to decide, before any worker settled it (none runs)', async () => {
    const { queue, rounds, paused } = approvalsOver();
    const jobId = await paused('user-1', 'turn-1', ['call_1']);
    const view = (at: number) => turnView({ queue, approvals: rounds, now: () => at }, 'user-1', jobId);
    expect(await view(EXPIRES - 1)).to.include({ status: 'awaiting_approval', approval_expires: new Date(EXPIRES).toISOString() });
    const lapsed = await view(EXPIRES);
    expect(lapsed.status).to.equal('queued');
    expect(lapsed).to.not.have.any.keys('approvals', 'approval_expires');
  });

  it("lists the caller's waiting turns with their undecided calls, the latest first, by session when asked", async () => {
    const { sut, paused } = approvalsOver();
    const older = await paused('user-1', 'turn-1', ['call_1'], 'session-1', EXPIRES);
    const newer = await paused('user-1', 'turn-2', ['call_1', 'call_2'], 'session-2', EXPIRES + 1_000);
    await paused('user-2', 'turn-3', ['call_1']);
    await sut.decide('user-1', newer, [{ id: 'call_1', approve: true }]);

    const listed = await sut.awaitingApproval('user-1');
    expect(listed.map((job) => job.job_id)).to.deep.equal([newer, older]);
    expect(listed[0]).to.deep.equal({
      job_id: newer,
      status: 'awaiting_approval',
      session_id: 'session-2',
      message: 'make it',
      approvals: [{ id: 'call_2', tool: 'platform_dynamic_api_request', server: 'built-in', arguments: { method: 'POST' } }],
      approval_expires: new Date(EXPIRES + 1_000).toISOString(),
    });
    expect((await sut.awaitingApproval('user-1', 'session-1')).map((job) => job.job_id)).to.deep.equal([older]);
    expect(await sut.awaitingApproval('user-1', 'session-9')).to.deep.equal([]);
  });

  it('leaves out a turn whose job is gone (stopped while its round was listed) and one that runs again', async () => {
    const { sut, queue, rounds, paused } = approvalsOver();
    await rounds.open('turn-gone', { paused: pausedAgent(['call_1']), expiresAt: EXPIRES }, 120_000, 'user-1');
    const running = await paused('user-1', 'turn-1', ['call_1']);
    queue.activate(running);
    expect(await sut.awaitingApproval('user-1')).to.deep.equal([]);
  });

  it('lists and decides calls with ids that name properties of plain objects like any other', async () => {
    const { sut, queue, paused } = approvalsOver();
    const ids = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
    const jobId = await paused('user-1', 'turn-1', ids);
    const waitingIds = async () => (await sut.awaitingApproval('user-1'))[0]?.approvals?.map((call) => call.id);
    expect(await waitingIds()).to.deep.equal(ids);

    expect(await sut.decide('user-1', jobId, [{ id: '__proto__', approve: true }])).to.have.property('status', 'awaiting_approval');
    expect(await waitingIds()).to.deep.equal(['constructor', 'toString', 'hasOwnProperty']);
    expect(await sut.decide('user-1', jobId, [{ id: 'constructor', approve: false }])).to.have.property('status', 'awaiting_approval');
    expect(await waitingIds()).to.deep.equal(['toString', 'hasOwnProperty']);
    const last = await sut.decide('user-1', jobId, [
      { id: 'toString', approve: true },
      { id: 'hasOwnProperty', approve: true },
    ]);
    expect(last).to.deep.equal({ job_id: jobId, status: 'queued' });
    expect(queue.resumed).to.deep.equal([jobId]);
    const inherited = await refusal(sut.decide('user-1', jobId, [{ id: 'valueOf', approve: true }]));
    expect((inherited as ValidationError).fields, 'a name no call has is no call').to.deep.equal({
      decisions: ["No proposed call of this turn waits under the id 'valueOf'."],
    });
  });
});
