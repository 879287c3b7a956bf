import { expect } from 'chai';
import { ChatService, type ChatTurnQueue } from '../../src/chat/chat.service.js';
import type { ConversationStore } from '../../src/chat/conversation-store.port.js';
import { addAndWait } from '../../src/kernel/jobs/add-and-wait.js';
import { ConflictError } from '../../src/kernel/errors.js';
import { ChatJobName, type ChatTurnData, type ChatTurnResult } from '../../src/chat/chat.jobs.js';
import type { JobOutcome } from '../../src/kernel/jobs/job-queue.port.js';
import { MemoryApprovalStore } from '../support/fakes/memory-approval-store.js';

/**
 * A queue whose jobs finish before `add` resolves, as happens when a fast worker's completion
 * event is read before the add's reply: only a waiter listening before the add hears it. One that
 * starts after would wait out its time and hear nothing, so it hears nothing at once (no timer).
 */
function instantQueue(): ChatTurnQueue & { waiting(): number } {
  const waiters = new Map<string, Set<(outcome: JobOutcome<ChatTurnResult> | null) => void>>();
  const finished = new Set<string>();
  return {
    async add({ data }, jobId) {
      finished.add(jobId);
      const outcome: JobOutcome<ChatTurnResult> = {
        state: 'completed',
        result: { response: `echo: ${data.message}`, sessionId: data.sessionId, model: 'm', stored: true },
      };
      for (const settle of waiters.get(jobId) ?? []) settle(outcome);
    },
    async get() {
      return null;
    },
    waitFor(jobId, _timeoutMs, signal) {
      if (finished.has(jobId)) return Promise.resolve(null);
      return new Promise((resolve) => {
        const listeners = waiters.get(jobId) ?? new Set();
        waiters.set(jobId, listeners);
        const settle = (outcome: JobOutcome<ChatTurnResult> | null) => {
          listeners.delete(settle);
          resolve(outcome);
        };
        signal?.addEventListener('abort', () => settle(null));
        listeners.add(settle);
      });
    },
    addDeduplicated: async () => {
      throw new Error('chat turns are not deduplicated');
    },
    watch: () => () => {},
    watchOutcomes: () => () => {},
    stop: async () => {},
    resume: async () => {},
    waiting: () => [...waiters.values()].reduce((sum, listeners) => sum + listeners.size, 0),
  };
}

const conversations = { generation: async () => 0 } as unknown as ConversationStore;

describe('waiting for a job', () => {
  it('hears a chat turn that finishes before its add returns, and leaves no listener behind', async () => {
    const queue = instantQueue();
    const chat = new ChatService({
      models: { byName: async () => null, defaultModel: async () => ({ id: 'model-1', name: 'm' }), all: async () => [] },
      queue,
      conversations,
      approvals: new MemoryApprovalStore(),
      limiter: { consume: async () => 0 },
      ratePerMinute: 0,
      waitMs: 5_000,
    });
    const reply = await chat.send('user-1', { message: 'hi' }, { wait: true });
    expect(reply).to.include({ status: 'completed', response: 'echo: hi' });
    expect(queue.waiting()).to.equal(0);
  });

  it('stops listening when the add fails', async () => {
    const queue = instantQueue();
    const failure = new Error('Redis is unreachable');
    await addAndWait(queue, 'job-1', () => Promise.reject(failure), 60_000).then(
      () => expect.fail('the add failed'),
      (error: unknown) => expect(error).to.equal(failure),
    );
    expect(queue.waiting()).to.equal(0);
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
    new ChatService({
      models: {
        byName: async () => null,
        defaultModel: async () => null,
        all: async () => names.map((name) => ({ name, provider: 'ollama', description: '', is_default: false })),
      },
      queue: instantQueue(),
      conversations,
      approvals: new MemoryApprovalStore(),
      limiter: { consume: async () => 0 },
      ratePerMinute: 0,
      waitMs: 5_000,
    });
  const refusal = (chat: ChatService) =>
    chat.send('user-1', { message: 'hi' }, { wait: true }).then(
      () => expect.fail('no model to run on'),
      (error: Error) => error,
    );

  it('says how to create one when there is none, and which to name when none is the default', async () => {
    const none = await refusal(chatOver([]));
    expect(none).to.be.instanceOf(ConflictError);
    expect(none.message).to.match(/^No LLM model is configured for chat/);
    const undecided = await refusal(chatOver(['llama3.1', 'gpt-4o']));
    expect(undecided).to.be.instanceOf(ConflictError);
    expect(undecided.message).to.equal(
      `No LLM model is the default. Name one in "model" ('llama3.1', 'gpt-4o'), or make one the default: PATCH /api/plugins/ai-ops/llm-models/{id}/ with {"is_default": true}.`,
    );
  });
});
