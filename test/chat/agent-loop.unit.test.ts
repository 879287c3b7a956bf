import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { AgentLoop, MAX_CALLS_PER_STEP } from '../../src/chat/agent/agent-loop.js';
import { INTERRUPTED_CALL } from '../../src/chat/agent/approval-resume.js';
import type { AgentOutcome, AgentTurn, ApprovedCallLog, ToolCallOutcome, TurnMessage } from '../../src/chat/agent/turn-types.js';
import { exposedToolNames } from '../../src/chat/agent/tool-naming.js';
import type { AuditEntryInput } from '../../src/chat/audit/audit-log.port.js';
import { ToolCallAudit } from '../../src/chat/audit/tool-call-audit.js';
import { truncateWithMarker } from '../../src/chat/agent/truncate.js';
import type { ChatProgress } from '../../src/chat/chat.jobs.js';
import { PlanChangedError, type ChatTools } from '../../src/chat/chat-tools.port.js';
import type { WritePlan } from '../../src/write-plans/write-plan.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import type { ChatProvider, ProviderReply, ProviderRequest, ToolCall } from '../../src/chat/providers/provider.port.js';
import { gate } from '../support/gate.js';

const TOOL = { name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: {} } };

/** A provider that answers from a script, then in text; it keeps every request. */
function scriptedProvider(script: ToolCall[][]): ChatProvider & { requests: ProviderRequest[] } {
  const requests: ProviderRequest[] = [];
  return {
    requests,
    async chat(request) {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const calls = script.shift();
      return {
        content: calls ? '' : 'final answer',
        toolCalls: calls ?? [],
        usage: { input_tokens: 1, output_tokens: 1 },
      } satisfies ProviderReply;
    },
  };
}

function turn(provider: ChatProvider, events: ChatProgress[] = [], signal = new AbortController().signal): AgentTurn {
  return {
    provider,
    model: { id: 'model-1', name: 'model-1', provider: 'openai', temperature: 0, model_config: {} },
    prompt: [],
    message: 'where is r1?',
    userId: 'u1',
    signal,
    report: async (progress) => void events.push(progress),
  };
}

const noApproval = async () => ({ server: 'test', needsApproval: false });

/** The outcome of a turn that answered (not one that paused). */
function answered(outcome: AgentOutcome): Extract<AgentOutcome, { kind: 'answered' }> {
  if (outcome.kind !== 'answered') throw new Error('the turn paused');
  return outcome;
}

const call = (id: string, args: Record<string, unknown> = {}, name = 'lookup'): ToolCall => ({ id, name, arguments: args });

describe(AgentLoop.name, () => {
  const loop = (tools: ChatTools, overrides: Partial<ConstructorParameters<typeof AgentLoop>[0]> = {}) =>
    new AgentLoop({
      tools,
      limiter: new ConcurrencyLimiter(4),
      maxSteps: 10,
      toolTimeoutMs: 5_000,
      resultChars: 1_000,
      answerChars: 10_000,
      ...overrides,
    });

  it('runs the calls of one step in parallel and gives every result back in order', async () => {
    // No call answers before all three have started: run one by one, the first would wait for ever.
    const allStarted = gate();
    let started = 0;
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: noApproval,
      call: async (_name, args) => {
        if (++started === 3) allStarted.open();
        await allStarted.opened;
        return `found ${String(args.name)}`;
      },
    };
    const provider = scriptedProvider([[call('c1', { name: 'r1' }), call('c2', { name: 'r2' }), call('c3', { name: 'r3' })]]);
    const events: ChatProgress[] = [];
    const outcome = answered(await loop(tools).run(turn(provider, events)));
    expect(outcome.reply.content).to.equal('final answer');
    expect(outcome.messages.filter((message) => message.role === 'tool')).to.deep.equal([
      { role: 'tool', tool_call_id: 'c1', name: 'lookup', content: 'found r1' },
      { role: 'tool', tool_call_id: 'c2', name: 'lookup', content: 'found r2' },
      { role: 'tool', tool_call_id: 'c3', name: 'lookup', content: 'found r3' },
    ]);
    expect(events.filter((event) => event.type === 'tool_call')).to.have.length(3);
    expect(events.filter((event) => event.type === 'tool_result' && event.ok)).to.have.length(3);
    expect(outcome.usage).to.deep.equal({ input_tokens: 2, output_tokens: 2 });
  });

  it('turns a failing tool and a tool past its time limit into error results the model sees', async () => {
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: noApproval,
      call: async (_name, args) => {
        if (args.mode === 'fail') throw new Error('backend down');
        return new Promise<string>(() => undefined); // never answers, ignores its signal
      },
    };
    const provider = scriptedProvider([[call('c1', { mode: 'fail' }), call('c2', { mode: 'hang' })]]);
    const events: ChatProgress[] = [];
    const outcome = answered(await loop(tools, { toolTimeoutMs: 100 }).run(turn(provider, events)));
    const results = outcome.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results).to.deep.equal(['error: backend down', 'error: the tool did not answer within 0.1 s']);
    expect(events.filter((event) => event.type === 'tool_result').every((event) => event.type === 'tool_result' && !event.ok)).to.equal(
      true,
    );
    expect(JSON.stringify(provider.requests[1]?.messages)).to.include('error: backend down');
    expect(outcome.reply.content).to.equal('final answer');
  });

  it('cuts long results to the budget with a marker', async () => {
    const tools: ChatTools = { list: async () => [TOOL], review: noApproval, call: async () => 'y'.repeat(5_000) };
    const outcome = answered(await loop(tools, { resultChars: 300 }).run(turn(scriptedProvider([[call('c1')]]))));
    const result = outcome.messages.find((message) => message.role === 'tool')?.content ?? '';
    expect(result.startsWith('y'.repeat(300))).to.equal(true);
    expect(result).to.have.length.lessThan(400);
    expect(result).to.include('[truncated: 4700 of 5000 characters left out]');
  });

  it('cuts a long answer to CHAT_MESSAGE_MAX_CHARS with a marker, in the reply and in what is stored', async () => {
    const huge: ChatProvider = { chat: async () => ({ content: 'z'.repeat(3_000_000), toolCalls: [] }) };
    const outcome = answered(
      await loop({ list: async () => [], review: noApproval, call: async () => '' }, { answerChars: 1_000 }).run(turn(huge)),
    );
    expect(outcome.reply.content).to.equal(truncateWithMarker('z'.repeat(3_000_000), 1_000));
    expect(outcome.messages.at(-1)).to.deep.equal({ role: 'assistant', content: outcome.reply.content });
    expect(outcome.reply.content).to.have.length.lessThan(1_100);
  });

  it('streams at most CHAT_MESSAGE_MAX_CHARS of an answer, starting again on a retried call', async () => {
    const streamed: string[] = [];
    const chunky: ChatProvider = {
      async chat(request) {
        for (let i = 0; i < 3; i++) request.stream?.text('a'.repeat(400));
        request.stream?.restart();
        for (let i = 0; i < 30; i++) request.stream?.text('b'.repeat(400));
        return { content: 'b'.repeat(12_000), toolCalls: [] };
      },
    };
    const sink = { text: (delta: string) => void streamed.push(delta), restart: () => void streamed.push('<restart>') };
    await loop({ list: async () => [], review: noApproval, call: async () => '' }, { answerChars: 1_000 }).run({
      ...turn(chunky),
      text: () => sink,
    });
    const afterRestart = streamed.slice(streamed.indexOf('<restart>') + 1).join('');
    expect(streamed.slice(0, streamed.indexOf('<restart>')).join('')).to.equal('a'.repeat(1_000));
    expect(afterRestart).to.equal('b'.repeat(1_000));
  });

  it('stops after AGENT_MAX_STEPS model calls: the last is offered no tools and its text is the reply', async () => {
    const tools: ChatTools = { list: async () => [TOOL], review: noApproval, call: async () => 'again' };
    const forever = Array.from({ length: 50 }, (_, i) => [call(`c${i}`)]);
    const provider = scriptedProvider(forever);
    const outcome = answered(await loop(tools, { maxSteps: 4 }).run(turn(provider)));
    expect(provider.requests).to.have.length(4);
    expect(provider.requests.map((request) => request.tools.length)).to.deep.equal([1, 1, 1, 0]);
    expect(outcome.messages.filter((message) => message.role === 'tool')).to.have.length(3);
  });

  it("leaves nothing on the turn's signal from its model calls, though a provider leaves a listener on each call's", async () => {
    const tools: ChatTools = { list: async () => [TOOL], review: noApproval, call: async () => 'again' };
    const provider = scriptedProvider(Array.from({ length: 11 }, (_, i) => [call(`c${i}`)]));
    const chat = provider.chat.bind(provider);
    // As the SDKs do: a listener added for each request and never removed.
    provider.chat = async (request) => {
      request.signal?.addEventListener('abort', () => undefined, { once: true });
      return chat(request);
    };
    const signal = new AbortController().signal;
    answered(await loop(tools, { maxSteps: 12 }).run(turn(provider, [], signal)));
    expect(provider.requests).to.have.length(12);
    expect(getEventListeners(signal, 'abort')).to.have.length(0);
  });

  it('gives up when the turn’s deadline passes, even inside a tool call', async () => {
    const tools: ChatTools = { list: async () => [TOOL], review: noApproval, call: () => new Promise<string>(() => undefined) };
    const deadline = AbortSignal.timeout(100);
    let failure: unknown;
    await loop(tools, { toolTimeoutMs: 60_000 })
      .run(turn(scriptedProvider([[call('c1')]]), [], deadline))
      .catch((error: unknown) => (failure = error));
    expect(deadline.aborted).to.equal(true);
    expect(failure).to.be.instanceOf(Error);
  });
});

describe(`${AgentLoop.name}: approval before writes`, () => {
  const loop = (tools: ChatTools) =>
    new AgentLoop({
      tools,
      limiter: new ConcurrencyLimiter(4),
      maxSteps: 10,
      toolTimeoutMs: 5_000,
      resultChars: 1_000,
      answerChars: 10_000,
    });
  /** `write` calls wait for a decision; every call is recorded with the approval (and the server it was proposed on) it ran under. */
  function writeTools(ran: Array<{ args: Record<string, unknown>; approved?: boolean; on?: string }>): ChatTools {
    return {
      list: async () => [TOOL],
      review: async (_name, args) => ({ server: 'inventory', serverRef: 'inventory@1', needsApproval: args.write === true }),
      call: async (_name, args, context) => {
        ran.push({
          args,
          ...(context.approval ? { approved: context.approval.approved } : {}),
          ...(context.reviewedServerRef ? { on: context.reviewedServerRef } : {}),
        });
        return `did ${String(args.what)}`;
      },
    };
  }
  const decision = (approved: boolean, note?: string) => ({
    approved,
    ...(note ? { note } : {}),
    decided_by: 'u1',
    decided_at: '2026-01-01T00:00:00.000Z',
  });

  it('runs the calls that need no decision, then pauses with the others; goes on from there once decided', async () => {
    const ran: Array<{ args: Record<string, unknown>; approved?: boolean; on?: string }> = [];
    const provider = scriptedProvider([
      [call('c1', { what: 'read' }), call('c2', { what: 'create', write: true }), call('c3', { what: 'delete', write: true })],
    ]);
    const events: ChatProgress[] = [];
    const first = await loop(writeTools(ran)).run(turn(provider, events));
    if (first.kind !== 'paused') throw new Error('the turn should have paused');
    // Every call runs on what it was reviewed as: the server as it was then.
    expect(ran).to.deep.equal([{ args: { what: 'read' }, on: 'inventory@1' }]);
    expect(first.paused.pending).to.deep.equal([
      { id: 'c2', tool: 'lookup', server: 'inventory', server_ref: 'inventory@1', arguments: { what: 'create', write: true } },
      { id: 'c3', tool: 'lookup', server: 'inventory', server_ref: 'inventory@1', arguments: { what: 'delete', write: true } },
    ]);
    expect(provider.requests).to.have.length(1);

    // The paused state crosses Redis as JSON.
    const paused = JSON.parse(JSON.stringify(first.paused)) as typeof first.paused;
    const outcome = answered(
      await loop(writeTools(ran)).run({
        ...turn(provider, events),
        resume: { paused, decisions: { c2: decision(true), c3: decision(false, 'keep it') } },
      }),
    );
    // The approved call goes to its tool with the server it was proposed on, which must still be there as it was.
    expect(ran).to.deep.equal([
      { args: { what: 'read' }, on: 'inventory@1' },
      { args: { what: 'create', write: true }, approved: true, on: 'inventory@1' },
    ]);
    expect(outcome.messages.filter((message) => message.role === 'tool')).to.deep.equal([
      { role: 'tool', tool_call_id: 'c1', name: 'lookup', content: 'did read' },
      { role: 'tool', tool_call_id: 'c2', name: 'lookup', content: 'did create', approval: decision(true) },
      { role: 'tool', tool_call_id: 'c3', name: 'lookup', content: 'declined by the user: keep it', approval: decision(false, 'keep it') },
    ]);
    expect(toolMessages(provider.requests[1])).to.deep.equal(['did read', 'did create', 'declined by the user: keep it']);
    expect(
      events.filter((event) => event.type === 'approval_decided').map((event) => event.type === 'approval_decided' && event.approved),
    ).to.deep.equal([true, false]);
    expect(outcome.reply.content).to.equal('final answer');
  });

  it('gives repeated and empty call ids ids of their own, so the call approved is the call that runs', async () => {
    const ran: Array<{ args: Record<string, unknown>; approved?: boolean; on?: string }> = [];
    // The same id twice in a step, one used in an earlier step again, and none at all.
    const provider = scriptedProvider([
      [call('x', { what: 'read' })],
      [call('x', { what: 'read again' }), call('x', { what: 'delete', write: true }), call('', { what: 'list' })],
    ]);
    const events: ChatProgress[] = [];
    const first = await loop(writeTools(ran)).run(turn(provider, events));
    if (first.kind !== 'paused') throw new Error('the turn should have paused');
    const ids = (first.paused.messages.at(-1) as { tool_calls: ToolCall[] }).tool_calls.map((each) => each.id);
    expect(new Set(ids).size, ids.join()).to.equal(3);
    expect(ids).to.not.include('x').and.not.include('');
    expect(first.paused.pending).to.have.length(1);
    const [waiting] = first.paused.pending;
    expect(waiting).to.include({ id: ids[1] });
    expect(events.filter((event) => event.type === 'tool_call').map((event) => event.type === 'tool_call' && event.id)).to.deep.equal([
      'x',
      ...ids,
    ]);

    const outcome = answered(
      await loop(writeTools(ran)).run({
        ...turn(provider, events),
        resume: { paused: first.paused, decisions: { [ids[1]!]: decision(true) } },
      }),
    );
    expect(ran.map(({ args, approved }) => ({ what: args.what, approved }))).to.deep.equal([
      { what: 'read', approved: undefined },
      { what: 'read again', approved: undefined },
      { what: 'list', approved: undefined },
      { what: 'delete', approved: true },
    ]);
    expect(toolMessagesOf(outcome.messages)).to.deep.equal(['did read', 'did read again', 'did delete', 'did list']);
  });

  it('never calls a tool that was unknown when its step was reviewed, even if one by that name appeared since', async () => {
    let called = 0;
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: async () => ({ server: '', needsApproval: false }),
      call: async () => `ran ${++called}`,
    };
    const events: ChatProgress[] = [];
    const outcome = answered(await loop(tools).run(turn(scriptedProvider([[call('c1', { data: 'secret' }, 'exfil')]]), events)));
    expect(called).to.equal(0);
    expect(toolMessagesOf(outcome.messages)).to.deep.equal([
      "error: no tool named 'exfil' is available (its server may have become unhealthy)",
    ]);
  });

  it(`runs at most ${MAX_CALLS_PER_STEP} calls of a step, as if the model had asked for those alone`, async () => {
    const ran: Array<{ args: Record<string, unknown> }> = [];
    const many = Array.from({ length: MAX_CALLS_PER_STEP + 10 }, (_, index) => call(`c${index}`, { what: `read ${index}` }));
    const events: ChatProgress[] = [];
    const warnings: string[] = [];
    const heard = (warning: Error) => void warnings.push(warning.name);
    process.on('warning', heard);
    const outcome = answered(await loop(writeTools(ran)).run(turn(scriptedProvider([many]), events)));
    // A warning is emitted a tick or so after its cause.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', heard);
    expect(warnings, 'the calls at once listen to the turn without a leak warning').to.not.include('MaxListenersExceededWarning');
    expect(ran).to.have.length(MAX_CALLS_PER_STEP);
    const step = outcome.messages.find((message) => message.role === 'assistant' && message.tool_calls) as { tool_calls: ToolCall[] };
    expect(step.tool_calls).to.have.length(MAX_CALLS_PER_STEP);
    expect(events.filter((event) => event.type === 'tool_call')).to.have.length(MAX_CALLS_PER_STEP);
  });

  it('runs an approved call at most once over every attempt of the turn: a retry reuses its outcome, and one started but never finished is not run again', async () => {
    const ran: Array<{ args: Record<string, unknown>; approved?: boolean }> = [];
    const paused = {
      step: 1,
      messages: [
        { role: 'user' as const, content: 'go' },
        {
          role: 'assistant' as const,
          content: '',
          tool_calls: [call('c1', { what: 'create', write: true }), call('c2', { what: 'delete', write: true })],
        },
      ],
      usage: { input_tokens: 0, output_tokens: 0 },
      ran: {},
      pending: [
        { id: 'c1', tool: 'lookup', server: 'inventory', arguments: { what: 'create', write: true } },
        { id: 'c2', tool: 'lookup', server: 'inventory', arguments: { what: 'delete', write: true } },
      ],
    };
    const marks = new Map<string, 'started' | ToolCallOutcome>();
    const approvedCalls: ApprovedCallLog = {
      start: async (id) => {
        const earlier = marks.get(id) ?? null;
        if (!earlier) marks.set(id, 'started');
        return earlier;
      },
      finish: async (id, outcome) => void marks.set(id, outcome),
    };
    const resume = { paused, decisions: { c1: decision(true), c2: decision(true) } };
    const audited: AuditEntryInput[] = [];
    const auditedLoop = () =>
      new AgentLoop({
        tools: writeTools(ran),
        limiter: new ConcurrencyLimiter(4),
        maxSteps: 10,
        toolTimeoutMs: 5_000,
        resultChars: 1_000,
        answerChars: 10_000,
        audit: new ToolCallAudit({ append: async (entry) => void audited.push(entry) }),
      });
    const attempt = async () =>
      answered(
        await auditedLoop().run({
          ...turn(scriptedProvider([])),
          resume,
          approvedCalls,
          audit: { user: 'u1', userId: 'u1', sessionId: 's1', jobId: 'j1', secrets: [] },
        }),
      );

    const first = await attempt();
    expect(ran.map(({ args }) => args.what)).to.deep.equal(['create', 'delete']);
    // The worker stopped after the turn went on: a retry answers from what the calls did.
    const retried = await attempt();
    expect(ran).to.have.length(2);
    expect(toolMessagesOf(retried.messages)).to.deep.equal(toolMessagesOf(first.messages));
    expect(
      audited.map((entry) => entry.outcome),
      'each call logged once, by the attempt that made it',
    ).to.deep.equal(['ok', 'ok']);

    // The worker stopped in the middle of `delete`: whether it took effect is unknown, so it is reported, not repeated.
    marks.set('c2', 'started');
    const interrupted = await attempt();
    expect(ran).to.have.length(2);
    expect(toolMessagesOf(interrupted.messages)).to.deep.equal(['did create', INTERRUPTED_CALL]);
    // The stopped worker never logged it: it is logged now, as approved and of unknown effect.
    expect(
      audited.slice(2).map(({ tool, server, outcome, approval }) => ({ tool, server, outcome, decision: approval?.decision })),
    ).to.deep.equal([{ tool: 'lookup', server: 'inventory', outcome: 'error', decision: 'approved' }]);
  });
});

describe(`${AgentLoop.name}: write plans`, () => {
  const plan = (summary: string, errors: WritePlan['errors'] = []): WritePlan => ({
    method: 'PATCH',
    path: '/api/dcim/devices/1/',
    operation: 'PATCH /api/dcim/devices/{id}/',
    summary,
    objects: [],
    count: 1,
    errors,
    notes: [],
  });
  const approve = { approved: true, decided_by: 'u1', decided_at: '2026-01-01T00:00:00.000Z' };
  const loop = (tools: ChatTools, audited: AuditEntryInput[] = []) =>
    new AgentLoop({
      tools,
      limiter: new ConcurrencyLimiter(4),
      maxSteps: 10,
      toolTimeoutMs: 5_000,
      resultChars: 1_000,
      answerChars: 10_000,
      audit: new ToolCallAudit({ append: async (entry) => void audited.push(entry) }),
    });
  const subject = { user: 'u1', userId: 'u1', sessionId: 's1', jobId: 'j1', secrets: [] };

  it('gives a plan with errors to the model as the call’s error, never pausing; the corrected call waits with its plan and what was fixed', async () => {
    let called = 0;
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: async (_name, args) =>
        args.status === 'up'
          ? {
              server: 'built-in',
              needsApproval: false,
              plan: plan('Update device leaf-1', [{ field: 'status', message: 'is not one of the choices', choices: ['active'] }]),
              refusal: 'its plan has errors: status',
            }
          : { server: 'built-in', needsApproval: true, plan: plan('Update device leaf-1') },
      call: async () => `ran ${++called}`,
    };
    const provider = scriptedProvider([[call('c1', { status: 'up' })], [call('c2', { status: 'active' })]]);
    const audited: AuditEntryInput[] = [];
    const outcome = await loop(tools, audited).run({ ...turn(provider), audit: subject });
    if (outcome.kind !== 'paused') throw new Error('the corrected call should wait');
    expect(called).to.equal(0);
    expect(toolMessages(provider.requests[1])).to.deep.equal(['error: its plan has errors: status']);
    expect(audited.map(({ outcome: ended, plan: kept }) => ({ ended, summary: kept?.summary }))).to.deep.equal([
      { ended: 'error', summary: 'Update device leaf-1' },
    ]);
    expect(outcome.paused.pending).to.have.length(1);
    expect(outcome.paused.pending[0]).to.deep.include({
      id: 'c2',
      plan: plan('Update device leaf-1'),
      fixed: ['status: is not one of the choices (choices: active)'],
    });
  });

  it('writes nothing when an approved plan no longer holds: the call waits again with the new plan and why, the model hears why once it is decided', async () => {
    const written: string[] = [];
    let moved = true;
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: async () => ({ server: 'built-in', needsApproval: true, plan: plan('Update device leaf-1') }),
      call: async (_name, args, context) => {
        if (context.plan && moved && args.which === 'moving') {
          moved = false;
          throw new PlanChangedError(plan('Update device leaf-1 (again)'), ['leaf-1 was changed since the plan']);
        }
        written.push(String(args.which));
        return `wrote ${String(args.which)}`;
      },
    };
    const provider = scriptedProvider([[call('c1', { which: 'moving' }), call('c2', { which: 'steady' })]]);
    const events: ChatProgress[] = [];
    const first = await loop(tools).run(turn(provider, events));
    if (first.kind !== 'paused') throw new Error('the turn should have paused');
    const again = await loop(tools).run({
      ...turn(provider, events),
      resume: { paused: first.paused, decisions: { c1: approve, c2: approve } },
    });
    if (again.kind !== 'paused') throw new Error('the moved call should be asked again');
    expect(written).to.deep.equal(['steady']);
    expect(again.paused.pending).to.deep.equal([
      {
        id: 'c1',
        tool: 'lookup',
        server: 'built-in',
        arguments: { which: 'moving' },
        plan: plan('Update device leaf-1 (again)'),
        replanned: ['leaf-1 was changed since the plan'],
      },
    ]);
    expect(Object.keys(again.paused.ran)).to.deep.equal(['c2']);
    expect(provider.requests).to.have.length(1);

    const done = answered(
      await loop(tools).run({ ...turn(provider, events), resume: { paused: again.paused, decisions: { c1: approve } } }),
    );
    expect(written).to.deep.equal(['steady', 'moving']);
    expect(toolMessagesOf(done.messages)).to.deep.equal([
      '(asked again because leaf-1 was changed since the plan) wrote moving',
      'wrote steady',
    ]);
  });

  it('gives the model the errors when an approved write can no longer be made as asked (an object it names is gone)', async () => {
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: async () => ({ server: 'built-in', needsApproval: true, plan: plan('Delete device leaf-1') }),
      call: async () => {
        throw new PlanChangedError(plan('Delete device at /api/dcim/devices/1/', [{ message: 'no device at /api/dcim/devices/1/' }]), [
          'leaf-1 could not be read again (deleted, or no longer visible)',
        ]);
      },
    };
    const provider = scriptedProvider([[call('c1')]]);
    const first = await loop(tools).run(turn(provider));
    if (first.kind !== 'paused') throw new Error('the turn should have paused');
    const done = answered(await loop(tools).run({ ...turn(provider), resume: { paused: first.paused, decisions: { c1: approve } } }));
    const [result] = toolMessagesOf(done.messages);
    expect(result).to.match(/^error: not written: what it changes moved since it was approved \(leaf-1 could not be read again/);
    expect(result).to.include('- no device at /api/dcim/devices/1/');
  });
});

function toolMessagesOf(messages: TurnMessage[]): string[] {
  return messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
}

function toolMessages(request: ProviderRequest | undefined): string[] {
  return (request?.messages ?? []).flatMap((message) => (message.role === 'tool' ? [message.content] : []));
}

describe(exposedToolNames.name, () => {
  it('keeps unique names, prefixes colliding ones with their server, and makes every name safe and unique', () => {
    const names = exposedToolNames([
      { server: 'alpha', tool: 'lookup_device' },
      { server: 'beta', tool: 'lookup_device' },
      { server: 'alpha', tool: 'site_status' },
      { server: 'my server!', tool: 'dump.all' },
      { server: 'x', tool: 'a'.repeat(80) },
    ]);
    expect(names.slice(0, 4)).to.deep.equal(['alpha_lookup_device', 'beta_lookup_device', 'site_status', 'dump_all']);
    expect(names[4]).to.have.length(64);
    expect(new Set(names).size).to.equal(names.length);
    for (const name of names) expect(name).to.match(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('numbers names that still collide after prefixing', () => {
    expect(
      exposedToolNames([
        { server: 'a b', tool: 't' },
        { server: 'a_b', tool: 't' },
      ]),
    ).to.deep.equal(['a_b_t', 'a_b_t_2']);
  });

  it('counts names that differ only in case as the same: no server tool passes for a built-in one', () => {
    const reserved = new Set(['platform_dynamic_api_request']);
    expect(exposedToolNames([{ server: 'evil', tool: 'Platform_dynamic_api_request' }], reserved)).to.deep.equal([
      'evil_Platform_dynamic_api_request',
    ]);
    expect(
      exposedToolNames([
        { server: 's', tool: 'Find' },
        { server: 't', tool: 'find' },
      ]),
    ).to.deep.equal(['s_Find', 't_find']);
  });

  it('names thousands of tools of one name, each its own', () => {
    const origins = Array.from({ length: 20_000 }, () => ({ server: 'flood', tool: 'same' }));
    const names = exposedToolNames(origins);
    expect(new Set(names).size).to.equal(origins.length);
    expect(names.slice(0, 3)).to.deep.equal(['flood_same', 'flood_same_2', 'flood_same_3']);
  });
});

describe(truncateWithMarker.name, () => {
  it('leaves short text alone', () => {
    expect(truncateWithMarker('short', 10)).to.equal('short');
  });
});
