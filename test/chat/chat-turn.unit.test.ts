import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentOutcome, AgentTurn } from '../../src/chat/agent/turn-types.js';
import { ChatTurnError, ChatTurnRunner, type ChatTurnDependencies } from '../../src/chat/chat-turn.js';
import type { StoredMessage } from '../../src/chat/session-store.port.js';
import { NotFoundError } from '../../src/kernel/errors.js';
import { TURN_STOPPED, type ChatTurnData } from '../../src/chat/chat.jobs.js';
import { ProviderError, type ProviderTarget } from '../../src/chat/providers/provider.port.js';
import type { LlmModelRecord } from '../../src/records/llm-model.js';
import type { TokenRecord } from '../../src/records/auth/token.service.js';
import { SecretUnavailableError } from '../../src/records/secret-resolver.js';
import { MemoryApprovalStore } from '../support/fakes/memory-approval-store.js';
import { MemorySessionStore } from '../support/fakes/memory-session-store.js';
import { collectGarbage } from '../support/garbage-collection.js';

const MODEL: LlmModelRecord = {
  id: 'model-1',
  created: '2026-01-01T00:00:00.000Z',
  last_updated: '2026-01-01T00:00:00.000Z',
  name: 'gpt-test',
  description: '',
  provider: 'openai',
  model_secret_key: 'openai-key',
  hosted_endpoint: 'https://llm.example/v1',
  api_version: '',
  temperature: 0,
  model_config: {},
  system_prompt: 'Be brief.',
};

const TURN: ChatTurnData = {
  turnId: 'turn-2',
  userId: 'u1',
  sessionId: 's1',
  modelId: MODEL.id,
  generation: 0,
  message: 'how many racks?',
};

function answer(content: string): AgentOutcome {
  return {
    kind: 'answered',
    messages: [
      { role: 'user', content: TURN.message },
      { role: 'assistant', content },
    ],
    reply: { content, toolCalls: [] },
    usage: { input_tokens: 12, output_tokens: 3 },
  };
}

/** An agent that answers with `reply` unless the test gives it another behaviour; it records each turn. */
function fakeAgent(behaviour: (turn: AgentTurn) => Promise<AgentOutcome> = async () => answer('42 racks')) {
  const turns: AgentTurn[] = [];
  return {
    turns,
    run: (turn: AgentTurn) => {
      turns.push(turn);
      return behaviour(turn);
    },
  };
}

/** Resolves when the turn's signal aborts, with what an agent says then. */
function untilAborted(turn: AgentTurn): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(new Error('aborted while calling the provider', { cause: turn.signal.reason }));
    if (turn.signal.aborted) fail();
    else turn.signal.addEventListener('abort', fail);
  });
}

describe(ChatTurnRunner.name, () => {
  let sessions: MemorySessionStore;
  let agent: ReturnType<typeof fakeAgent>;
  let targets: ProviderTarget[];
  let models: Map<string, LlmModelRecord>;
  let secrets: Map<string, string>;

  const runner = (overrides: Partial<ChatTurnDependencies> = {}) =>
    new ChatTurnRunner({
      models: {
        load: async (id) => {
          const model = models.get(id);
          if (!model) throw new NotFoundError(`No LLM model matches the given query.`);
          return model;
        },
      },
      secrets: {
        resolve: async (name) => {
          const value = secrets.get(name);
          if (value === undefined) throw new SecretUnavailableError(name, 'the variable is not set');
          return value;
        },
      },
      providers: {
        create: (target) => {
          targets.push(target);
          return { chat: async () => ({ content: 'unused: the fake agent answers', toolCalls: [] }) };
        },
      },
      sessions,
      agent,
      policy: { timeoutMs: 1_000, maxRetries: 0 },
      limits: { historyBudgetChars: 10_000, turnTimeoutMs: 60_000, approvalTimeoutMs: 900_000 },
      approvals: new MemoryApprovalStore(),
      ...overrides,
    });
  const context = (signal = new AbortController().signal) => ({
    signal,
    report: async () => undefined,
    park: async () => expect.fail('the turn should not park'),
  });
  const rejection = async (promise: Promise<unknown>): Promise<ChatTurnError> => {
    const error = await promise.then(
      () => expect.fail('the turn should have failed'),
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.instanceOf(ChatTurnError);
    return error as ChatTurnError;
  };
  const storedPreviousTurn = async () => {
    const messages: StoredMessage[] = [
      { role: 'user', content: 'hello', turn_id: 'turn-1', created: '2026-01-01T00:00:00.000Z' },
      { role: 'assistant', content: 'hi', turn_id: 'turn-1', created: '2026-01-01T00:00:00.000Z' },
    ];
    await sessions.append(TURN.userId, TURN.sessionId, {
      turnId: 'turn-1',
      generation: 0,
      model: MODEL.name,
      title: 'hello',
      response: 'hi',
      messages,
    });
  };

  beforeEach(() => {
    sessions = new MemorySessionStore();
    agent = fakeAgent();
    targets = [];
    models = new Map([[MODEL.id, MODEL]]);
    secrets = new Map([['openai-key', 'sk-test']]);
  });

  it('asks the model with its system prompt, the history and the credential, then stores the turn', async () => {
    await storedPreviousTurn();
    const result = await runner().run(TURN, context());
    expect(result).to.deep.equal({
      response: '42 racks',
      sessionId: 's1',
      model: 'gpt-test',
      stored: true,
      usage: { input_tokens: 12, output_tokens: 3 },
    });
    expect(targets).to.deep.equal([
      {
        provider: 'openai',
        model: 'gpt-test',
        hostedEndpoint: 'https://llm.example/v1',
        apiVersion: '',
        trusted: false,
        credential: 'sk-test',
      },
    ]);
    expect(agent.turns[0]?.prompt).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ]);
    expect(agent.turns[0]).to.include({ message: 'how many racks?', userId: 'u1' });
    const session = await sessions.get('u1', 's1');
    expect(session?.turns).to.equal(2);
    expect(session?.messages.slice(2).map(({ role, content, turn_id }) => ({ role, content, turn_id }))).to.deep.equal([
      { role: 'user', content: 'how many racks?', turn_id: 'turn-2' },
      { role: 'assistant', content: '42 racks', turn_id: 'turn-2' },
    ]);
  });

  it('trusts the endpoint only when a superuser set it, or when a configured default applies (the outbound policy decides otherwise)', async () => {
    for (const [fields, trusted] of [
      [{}, false],
      [{ destination_trusted: true }, true],
      [{ hosted_endpoint: '' }, true],
    ] as const) {
      targets = [];
      models.set(MODEL.id, { ...MODEL, ...fields });
      await runner().run({ ...TURN, turnId: `turn-${String(trusted)}-${Object.keys(fields).join()}` }, context());
      expect(targets[0]?.trusted, JSON.stringify(fields)).to.equal(trusted);
    }
  });
  it('sends no credential for a model without a secret', async () => {
    models.set(MODEL.id, { ...MODEL, model_secret_key: '', provider: 'ollama' });
    await runner().run(TURN, context());
    expect(targets[0]).to.not.have.property('credential');
  });

  it('answers a turn already stored (a retried job) without asking the model, even if the model was deleted since', async () => {
    await sessions.append('u1', 's1', {
      turnId: TURN.turnId,
      generation: 0,
      model: 'old-model',
      title: 't',
      response: 'stored answer',
      messages: [],
    });
    models.clear();
    const result = await runner().run(TURN, context());
    expect(result).to.deep.equal({ response: 'stored answer', sessionId: 's1', model: 'old-model', stored: true });
    expect(agent.turns).to.have.length(0);
  });

  it('answers what another attempt stored first when its own append finds the turn there (duplicate)', async () => {
    sessions.beforeAppend = async (turn) => {
      sessions.beforeAppend = undefined;
      await sessions.append('u1', 's1', { ...turn, response: 'the other attempt', model: 'other-model' });
    };
    const result = await runner().run(TURN, context());
    expect(result).to.deep.equal({ response: 'the other attempt', sessionId: 's1', model: 'other-model', stored: true });
    expect((await sessions.get('u1', 's1'))?.turns).to.equal(1);
  });

  it('answers but does not remember a turn whose session was cleared while it ran', async () => {
    await storedPreviousTurn();
    sessions.beforeAppend = async () => {
      sessions.beforeAppend = undefined;
      await sessions.clear('u1', 's1');
    };
    const result = await runner().run(TURN, context());
    expect(result).to.include({ response: '42 racks', stored: false });
    expect(await sessions.get('u1', 's1')).to.equal(null);
  });

  it('ends the key an earlier attempt left (its worker killed) before anything else, a turn answered from its session too', async () => {
    const calls: string[] = [];
    const delegator: NonNullable<ChatTurnDependencies['delegator']> = {
      endDelegation: async (workId) => {
        calls.push(`end ${workId}`);
        return true;
      },
      delegate: async (tokenId, { workId }) => {
        calls.push(`delegate ${workId} from ${tokenId}`);
        const token = { username: 'ann', superuser: false, permissions: [], write_enabled: true } as unknown as TokenRecord;
        return { key: 'delegated-key', token, revoke: async () => void calls.push(`revoke ${workId}`) };
      },
    };
    await runner({ delegator }).run({ ...TURN, tokenId: 'token-1' }, context());
    expect(calls).to.deep.equal(['end turn-2', 'delegate turn-2 from token-1', 'revoke turn-2']);

    calls.length = 0;
    await runner({ delegator }).run({ ...TURN, tokenId: 'token-1' }, context());
    expect(calls, 'stored by the attempt before').to.deep.equal(['end turn-2']);
    calls.length = 0;
    await runner({ delegator }).abandoned({ ...TURN, tokenId: 'token-1' });
    await runner({ delegator }).abandoned(TURN);
    expect(calls, 'a turn that failed for good; one without a token has no key').to.deep.equal(['end turn-2']);
  });

  it("tells every process of its key's end only when a tool took the key", async () => {
    const ends: Array<boolean | undefined> = [];
    const delegator: NonNullable<ChatTurnDependencies['delegator']> = {
      endDelegation: async () => false,
      delegate: async () => {
        const token = { username: 'ann', superuser: false, permissions: [], write_enabled: true } as unknown as TokenRecord;
        return { key: 'delegated-key', token, revoke: async (options) => void ends.push(options?.handedOut) };
      },
    };
    await runner({ delegator }).run({ ...TURN, tokenId: 'token-1' }, context());
    agent = fakeAgent(async (turn) => answer(`called with ${turn.credential?.key}`));
    await runner({ delegator }).run({ ...TURN, turnId: 'turn-3', tokenId: 'token-1' }, context());
    expect(ends).to.deep.equal([false, true]);
  });

  describe("with a cap on a user's turns at once", () => {
    const NOW = Date.parse('2026-03-01T10:00:00Z');
    /** A user's slots in memory; `held` counts those taken. */
    const slots = (limit: number) => {
      const state = { held: 0 };
      return {
        state,
        take: async () => (state.held < limit ? (state.held++, { release: async () => void state.held-- }) : null),
      };
    };
    const parking = () => {
      const parked: number[] = [];
      const parkedError = new Error('parked');
      return {
        parked,
        parkedError,
        context: {
          ...context(),
          park: async (untilMs: number) => {
            parked.push(untilMs);
            throw parkedError;
          },
        },
      };
    };

    it('sets a turn past the cap aside for a second, holding no worker and asking nothing, and runs it once a slot is free', async () => {
      const turnSlots = slots(1);
      const busy = await turnSlots.take();
      const { parked, parkedError, context: parkable } = parking();
      expect(
        await runner({ turnSlots, now: () => NOW })
          .run(TURN, parkable)
          .catch((error: unknown) => error),
      ).to.equal(parkedError);
      expect(parked).to.deep.equal([NOW + 1_000]);
      expect(agent.turns).to.have.length(0);
      expect(await sessions.get('u1', 's1')).to.equal(null);

      await busy!.release();
      expect(await runner({ turnSlots, now: () => NOW }).run(TURN, context())).to.include({ response: '42 racks' });
      expect(turnSlots.state.held, 'let go when the turn ends').to.equal(0);
    });

    it('lets go of the slot before a turn pauses for decisions, and takes none while it waits', async () => {
      const turnSlots = slots(1);
      const approvals = new MemoryApprovalStore();
      let heldWhilePausing = -1;
      agent = fakeAgent(async () => ({
        kind: 'paused',
        paused: {
          step: 1,
          messages: [],
          usage: { input_tokens: 0, output_tokens: 0 },
          ran: {},
          pending: [{ id: 'call_1', tool: 'platform_dynamic_api_request', server: 'built-in', arguments: { method: 'POST' } }],
        },
      }));
      const { parked, parkedError, context: parkable } = parking();
      const reporting = {
        ...parkable,
        report: async () => void (heldWhilePausing = turnSlots.state.held),
      };
      const sut = runner({ turnSlots, approvals, now: () => NOW });
      expect(await sut.run(TURN, reporting).catch((error: unknown) => error)).to.equal(parkedError);
      expect(heldWhilePausing).to.equal(0);
      expect(turnSlots.state.held).to.equal(0);

      // Woken before every call is decided: it parks until the expiry again, taking no slot.
      const busy = await turnSlots.take();
      expect(await sut.run(TURN, parkable).catch((error: unknown) => error)).to.equal(parkedError);
      expect(parked).to.deep.equal([NOW + 900_000, NOW + 900_000]);
      await busy!.release();
    });
  });

  it('does not start a turn stopped before it ran', async () => {
    const stop = new AbortController();
    stop.abort();
    const error = await rejection(runner().run(TURN, context(stop.signal)));
    expect(error).to.include({ kind: 'conflict', message: TURN_STOPPED, permanent: true });
    expect(agent.turns).to.have.length(0);
  });

  it('says a turn stopped while it waited for decisions was awaiting approval, and runs nothing of it', async () => {
    const approvals = new MemoryApprovalStore();
    const paused = {
      step: 1,
      messages: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      ran: {},
      pending: [{ id: 'call_1', tool: 'platform_dynamic_api_request', server: 'built-in', arguments: { method: 'POST' } }],
    };
    await approvals.open(TURN.turnId, { paused, expiresAt: Date.now() + 60_000 }, 60_000, TURN.userId);
    await approvals.close(TURN.turnId);
    const stop = new AbortController();
    stop.abort();
    const error = await rejection(runner({ approvals }).run(TURN, { ...context(stop.signal), firstRun: false }));
    expect(error).to.include({ kind: 'conflict', message: `${TURN_STOPPED} while it was awaiting approval`, permanent: true });
    // Set aside for another reason (no round waiting), it says only that it was stopped.
    const elsewhere = await rejection(runner().run(TURN, { ...context(stop.signal), firstRun: false }));
    expect(elsewhere).to.include({ message: TURN_STOPPED });
    expect(agent.turns).to.have.length(0);
  });

  it('stops a running turn: the agent is aborted and nothing is stored', async () => {
    const stop = new AbortController();
    agent = fakeAgent((turn) => {
      queueMicrotask(() => stop.abort());
      return untilAborted(turn);
    });
    const error = await rejection(runner().run(TURN, context(stop.signal)));
    expect(error).to.include({ kind: 'conflict', message: TURN_STOPPED });
    expect(await sessions.get('u1', 's1')).to.equal(null);
  });

  it('does not store an answer that came in after the stop', async () => {
    const stop = new AbortController();
    agent = fakeAgent(async () => {
      stop.abort();
      return answer('too late');
    });
    const error = await rejection(runner().run(TURN, context(stop.signal)));
    expect(error).to.include({ kind: 'conflict', message: TURN_STOPPED });
    expect(await sessions.get('u1', 's1')).to.equal(null);
  });

  it('fails for good a turn that outlives AGENT_TIMEOUT_S', async () => {
    agent = fakeAgent(untilAborted);
    const error = await rejection(
      runner({ limits: { historyBudgetChars: 10_000, turnTimeoutMs: 0, approvalTimeoutMs: 900_000 } }).run(TURN, context()),
    );
    expect(error).to.include({ kind: 'upstream', message: 'the turn took longer than 0 s', permanent: true });
  });

  it('keeps the time limit of a turn through a garbage collection while it runs', async () => {
    agent = fakeAgent(async (turn) => {
      await sleep(10);
      collectGarbage();
      return untilAborted(turn);
    });
    const error = await rejection(
      runner({ limits: { historyBudgetChars: 10_000, turnTimeoutMs: 100, approvalTimeoutMs: 900_000 } }).run(TURN, context()),
    );
    expect(error).to.include({ kind: 'upstream', message: 'the turn took longer than 0 s', permanent: true });
  });

  it('names the secret when the provider rejects its key, and does not retry', async () => {
    agent = fakeAgent(async () => {
      throw new ProviderError('auth', 'HTTP 401', 401);
    });
    const error = await rejection(runner().run(TURN, context()));
    expect(error).to.include({ kind: 'upstream', permanent: true });
    expect(error.message).to.equal("the provider rejected the API key in secret 'openai-key' (openai, model 'gpt-test', HTTP 401)");
  });

  it('retries a provider failure that may pass', async () => {
    agent = fakeAgent(async () => {
      throw new ProviderError('server', 'HTTP 503', 503);
    });
    const error = await rejection(runner().run(TURN, context()));
    expect(error).to.include({ kind: 'upstream', permanent: false });
    expect(error.message).to.contain('the provider failed');
  });

  it('fails for good when the model secret cannot be read', async () => {
    secrets.clear();
    const error = await rejection(runner().run(TURN, context()));
    expect(error).to.include({
      kind: 'upstream',
      permanent: true,
      message: "secret 'openai-key' could not be read: the variable is not set",
    });
    expect(agent.turns).to.have.length(0);
  });

  it('fails for good when the model was deleted before the turn ran', async () => {
    models.clear();
    const error = await rejection(runner().run(TURN, context()));
    expect(error).to.include({ kind: 'conflict', permanent: true, message: 'the LLM model of this turn was deleted before it ran' });
  });

  it('lets an unexpected failure through as it is', async () => {
    const bug = new TypeError('a bug');
    agent = fakeAgent(async () => {
      throw bug;
    });
    expect(
      await runner()
        .run(TURN, context())
        .catch((error: unknown) => error),
    ).to.equal(bug);
  });
});
