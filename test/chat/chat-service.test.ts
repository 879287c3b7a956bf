import { expect } from 'chai';
import { addAndWait, type ChatTurnData, type ChatTurnQueue, type ChatTurnResult, type JobOutcome } from '../../shared/chat/chat-queue.js';
import { ChatService } from '../../shared/chat/chat.service.js';
import type { ConversationStore } from '../../shared/chat/conversation.js';

/**
 * A queue whose jobs finish before `add` resolves, as happens when a fast worker's completion
 * event is read before the add's reply: only a waiter listening before the add hears it.
 */
function instantQueue(): ChatTurnQueue & { waiting(): number } {
  const waiters = new Map<string, Set<(outcome: JobOutcome<ChatTurnResult> | null) => void>>();
  return {
    async add(jobId: string, data: ChatTurnData) {
      const outcome: JobOutcome<ChatTurnResult> = { state: 'completed', result: { response: `echo: ${data.message}`, sessionId: data.sessionId, model: 'm', stored: true } };
      for (const settle of waiters.get(jobId) ?? []) settle(outcome);
    },
    async get() {
      return null;
    },
    waitFor(jobId, timeoutMs, signal) {
      return new Promise((resolve) => {
        const listeners = waiters.get(jobId) ?? new Set();
        waiters.set(jobId, listeners);
        const settle = (outcome: JobOutcome<ChatTurnResult> | null) => {
          listeners.delete(settle);
          clearTimeout(timer);
          resolve(outcome);
        };
        const timer = setTimeout(() => settle(null), timeoutMs);
        signal?.addEventListener('abort', () => settle(null));
        listeners.add(settle);
      });
    },
    watch: () => () => {},
    stop: async () => {},
    waiting: () => [...waiters.values()].reduce((sum, listeners) => sum + listeners.size, 0),
  };
}

const conversations = { generation: async () => 0 } as unknown as ConversationStore;

describe('waiting for a job', () => {
  it('hears a chat turn that finishes before its add returns, and leaves no listener behind', async () => {
    const queue = instantQueue();
    const chat = new ChatService({
      models: { byName: async () => null, defaultModel: async () => ({ id: 'model-1', name: 'm' }) },
      queue,
      conversations,
      limiter: { consume: async () => 0 },
      ratePerMinute: 0,
      waitMs: 5_000,
    });
    const started = Date.now();
    const reply = await chat.send('user-1', { message: 'hi' }, { wait: true });
    expect(reply).to.include({ status: 'completed', response: 'echo: hi' });
    expect(Date.now() - started).to.be.below(1_000);
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
    const outcome = await addAndWait(queue, 'job-2', () => queue.add('job-2', data), 5_000);
    expect(outcome).to.deep.include({ state: 'completed' });
  });
});
