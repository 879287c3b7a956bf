import { expect } from 'chai';
import { AgentLoop } from '../../src/chat/agent/agent-loop.js';
import type { AgentTurn } from '../../src/chat/agent/turn-types.js';
import { MAX_PROGRESS_EVENTS } from '../../src/chat/agent/tool-call-hooks.js';
import type { ChatProgress } from '../../src/chat/chat.jobs.js';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import type { ChatProvider, ProviderReply, ProviderRequest } from '../../src/chat/providers/provider.port.js';
import { checkElicitedContent } from '../../src/chat/elicited-content.js';
import { ValidationError } from '../../src/kernel/errors.js';

const TOOL = { name: 'work', description: 'Works', parameters: { type: 'object', properties: {} } };

/** Calls `work` once, then answers in text; asked for completions (sampling), it answers `sampled`. */
function provider(): ChatProvider & { requests: ProviderRequest[] } {
  const requests: ProviderRequest[] = [];
  return {
    requests,
    async chat(request) {
      requests.push({ ...request, signal: undefined });
      if (request.tools.length === 0 && requests.length > 1 && !request.messages.some((message) => message.role === 'tool'))
        return { content: 'sampled', toolCalls: [], usage: { input_tokens: 5, output_tokens: 2 } } satisfies ProviderReply;
      const first = requests.filter((each) => each.tools.length > 0).length === 1 && request.tools.length > 0;
      return {
        content: first ? '' : 'final',
        toolCalls: first ? [{ id: 'c1', name: 'work', arguments: {} }] : [],
        usage: { input_tokens: 1, output_tokens: 1 },
      };
    },
  };
}

function turn(events: ChatProgress[], overrides: Partial<AgentTurn> = {}): AgentTurn {
  return {
    provider: provider(),
    model: { id: 'm', name: 'model-m', provider: 'openai', temperature: 0, model_config: {} },
    prompt: [],
    message: 'go',
    userId: 'u1',
    signal: new AbortController().signal,
    report: async (progress) => void events.push(progress),
    ...overrides,
  };
}

const loop = (tools: ChatTools, limits: { toolTimeoutMs: number; toolMaxMs?: number }) =>
  new AgentLoop({ tools, limiter: new ConcurrencyLimiter(2), maxSteps: 3, resultChars: 1_000, answerChars: 1_000, ...limits });

/** A tool that reports progress `times` times, `everyMs` apart, then answers. */
function reporting(times: number, everyMs: number): ChatTools {
  return {
    list: async () => [TOOL],
    review: async () => ({ server: 'test', needsApproval: false }),
    call: async (_name, _args, context) => {
      for (let step = 1; step <= times; step++) {
        await new Promise((resolve) => setTimeout(resolve, everyMs));
        context.serverHooks?.onProgress?.({ progress: step, total: times, message: `step ${step}` });
      }
      return 'worked';
    },
  };
}

function toolResult(events: ChatProgress[]) {
  return events.find((event): event is Extract<ChatProgress, { type: 'tool_result' }> => event.type === 'tool_result');
}

describe('what a tool call hears from its server', () => {
  it("relays progress as tool_progress events and restarts the call's limit on each, so a call longer than the limit finishes", async () => {
    const events: ChatProgress[] = [];
    // 6 reports 40 ms apart (240 ms) under a 150 ms limit that each report restarts.
    await loop(reporting(6, 40), { toolTimeoutMs: 150, toolMaxMs: 5_000 }).run(turn(events));
    expect(toolResult(events)).to.include({ ok: true, content: 'worked' });
    const progress = events.filter((event) => event.type === 'tool_progress');
    expect(progress).to.have.length(6);
    expect(progress[0]).to.deep.equal({ type: 'tool_progress', step: 1, id: 'c1', name: 'work', progress: 1, total: 6, message: 'step 1' });
  });

  it('cuts a call at its total however often it reports (MCP_TOOL_MAX_S)', async () => {
    const events: ChatProgress[] = [];
    await loop(reporting(50, 20), { toolTimeoutMs: 100, toolMaxMs: 200 }).run(turn(events));
    expect(toolResult(events)).to.include({
      ok: false,
      content: 'error: the tool ran longer than 0.2 s (MCP_TOOL_MAX_S) and was cancelled',
    });
  });

  it(`reports at most ${MAX_PROGRESS_EVENTS} progress events of one call`, async () => {
    const events: ChatProgress[] = [];
    await loop(reporting(MAX_PROGRESS_EVENTS + 20, 0), { toolTimeoutMs: 5_000 }).run(turn(events));
    expect(events.filter((event) => event.type === 'tool_progress')).to.have.length(MAX_PROGRESS_EVENTS);
  });

  it("puts a server's question to the turn's asker, holding the call's limit while the user answers, and returns the answer", async () => {
    const events: ChatProgress[] = [];
    let released!: () => void;
    const answered = new Promise<void>((resolve) => (released = resolve));
    const tools: ChatTools = {
      list: async () => [TOOL],
      review: async () => ({ server: 'test', needsApproval: false }),
      call: async (_name, _args, context) => {
        context.observe?.({ server: 'srv' });
        const answer = await context.serverHooks!.elicit!(
          { mode: 'form', message: 'name?', requestedSchema: { type: 'object', properties: {} } },
          new AbortController().signal,
        );
        return `answer: ${answer.action} ${JSON.stringify(answer.content)}`;
      },
    };
    const asked: unknown[] = [];
    const run = loop(tools, { toolTimeoutMs: 50 }).run(
      turn(events, {
        elicit: async (question, call) => {
          asked.push({ question, call });
          // The user takes longer than the call's limit: held, it does not cut the call.
          setTimeout(released, 150);
          await answered;
          return { answer: { action: 'accept', content: { name: 'Ada' } }, answeredBy: 'u1' };
        },
      }),
    );
    await run;
    expect(asked).to.deep.equal([
      {
        question: { mode: 'form', message: 'name?', requestedSchema: { type: 'object', properties: {} } },
        call: { step: 1, id: 'c1', name: 'work', server: 'srv' },
      },
    ]);
    expect(toolResult(events)).to.include({ ok: true, content: 'answer: accept {"name":"Ada"}' });
  });

  it('serves a completion with the turn’s model and counts its tokens; a spent budget refuses it', async () => {
    const events: ChatProgress[] = [];
    const metered: unknown[] = [];
    const sampling: ChatTools = {
      list: async () => [TOOL],
      review: async () => ({ server: 'test', needsApproval: false }),
      call: async (_name, _args, context) => {
        const answer = await context.serverHooks!.sample!(
          { messages: [{ role: 'user', text: 'hi' }], maxTokens: 5 },
          new AbortController().signal,
        );
        return `${answer.model}: ${answer.text}`;
      },
    };
    await loop(sampling, { toolTimeoutMs: 5_000 }).run(turn(events, { meter: async (tokens) => void metered.push(tokens) }));
    expect(toolResult(events)).to.include({ ok: true, content: 'model-m: sampled' });
    expect(metered).to.deep.include({ input_tokens: 5, output_tokens: 2 });

    const refused: ChatProgress[] = [];
    await loop(sampling, { toolTimeoutMs: 5_000 }).run(
      turn(refused, {
        admit: async () => {
          throw new Error('the daily token budget is spent');
        },
      }),
    );
    expect(toolResult(refused)).to.include({ ok: false, content: 'error: the daily token budget is spent' });
  });
});

describe(checkElicitedContent.name, () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2 },
      email: { type: 'string', format: 'email' },
      count: { type: 'integer', minimum: 1 },
      agree: { type: 'boolean' },
      color: { type: 'string', enum: ['red', 'blue'] },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    },
    required: ['name'],
  };
  const refusal = (content: Record<string, unknown>, against: Record<string, unknown> = schema) => {
    try {
      checkElicitedContent(against, content);
      return null;
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      return (error as ValidationError).fields;
    }
  };

  it('takes an answer that fits the requested schema', () => {
    expect(refusal({ name: 'Ada', email: 'ada@example.com', count: 2, agree: true, color: 'red', tags: ['a'] })).to.equal(null);
  });

  it('refuses a missing required field, a wrong type, a bad format or choice, and a field not asked for', () => {
    expect(refusal({})).to.have.property('content.name');
    expect(refusal({ name: 'Ada', count: 1.5 })).to.have.property('content.count');
    expect(refusal({ name: 'Ada', email: 'nope' })).to.have.property('content.email');
    expect(refusal({ name: 'Ada', color: 'green' })).to.have.property('content.color');
    expect(refusal({ name: 'Ada', agree: 'yes' })).to.have.property('content.agree');
    expect(refusal({ name: 'Ada', extra: 1 })).to.have.property('content.extra');
  });

  it('takes no answer to a schema outside the protocol’s flat form', () => {
    expect(refusal({ nested: {} }, { type: 'object', properties: { nested: { type: 'object' } } })).to.have.property('content');
  });
});
