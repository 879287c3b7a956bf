import { expect } from 'chai';
import type { TurnToStore } from '../../src/chat/session-store.port.js';
import type { ChatModel } from '../../src/chat/model-directory.js';
import { SessionsService } from '../../src/chat/sessions.service.js';
import { NotFoundError } from '../../src/kernel/errors.js';
import { MemorySessionStore } from '../support/fakes/memory-session-store.js';

const CREATED = '1970-01-01T00:00:00.000Z';

function turn(turnId: string, generation = 0): TurnToStore {
  return {
    turnId,
    generation,
    model: 'm',
    title: 'first question',
    response: 'an answer',
    messages: [
      { role: 'user', content: 'first question', turn_id: turnId, created: CREATED },
      { role: 'assistant', content: 'an answer', turn_id: turnId, created: CREATED },
    ],
  };
}

function sessionsOver() {
  const sessions = new MemorySessionStore();
  const models: ChatModel[] = [{ name: 'm', provider: 'ollama', description: 'local', is_default: true }];
  const sut = new SessionsService({ sessions, models: { all: async () => models } });
  return { sut, sessions, models };
}

function notFound(attempt: Promise<unknown>): Promise<void> {
  return attempt.then(
    () => expect.fail('not found'),
    (error: Error) => {
      expect(error).to.be.instanceOf(NotFoundError);
      expect(error.message).to.equal('No chat session matches the given id.');
    },
  );
}

describe(SessionsService.name, () => {
  it("serves a user's own sessions and their history; another user's are not there", async () => {
    const { sut, sessions } = sessionsOver();
    await sessions.append('user-1', 'session-1', turn('turn-1'));
    const summary = { id: 'session-1', title: 'first question', model: 'm', turns: 1, created: CREATED, updated: CREATED };
    expect(await sut.list('user-1', 0, 10)).to.deep.equal({ count: 1, results: [summary] });
    expect(await sut.get('user-1', 'session-1')).to.deep.equal({ ...summary, messages: turn('turn-1').messages });
    expect(await sut.list('user-2', 0, 10)).to.deep.equal({ count: 0, results: [] });
    await notFound(sut.get('user-2', 'session-1'));
    await notFound(sut.rename('user-2', 'session-1', 'mine now'));
    await notFound(sut.clear('user-2', 'session-1'));
    expect(await sut.get('user-1', 'session-1')).to.deep.include({ title: 'first question', turns: 1 });
  });

  it('clears a session for good and moves its generation on, so a turn asked before is not stored', async () => {
    const { sut, sessions } = sessionsOver();
    await sessions.append('user-1', 'session-1', turn('turn-1'));
    expect(await sessions.generation('user-1', 'session-1')).to.equal(0);
    await sut.clear('user-1', 'session-1');
    expect(await sessions.generation('user-1', 'session-1')).to.equal(1);
    await notFound(sut.get('user-1', 'session-1'));
    expect(await sessions.append('user-1', 'session-1', turn('turn-2', 0))).to.equal('cleared');
    await notFound(sut.clear('user-1', 'session-1'));
  });

  it('renames a session with the title trimmed', async () => {
    const { sut, sessions } = sessionsOver();
    await sessions.append('user-1', 'session-1', turn('turn-1'));
    expect(await sut.rename('user-1', 'session-1', '  Routers in ams  ')).to.deep.include({ id: 'session-1', title: 'Routers in ams' });
    await notFound(sut.rename('user-1', 'session-9', 'nothing'));
  });

  it('offers the models a turn may name', async () => {
    const { sut, models } = sessionsOver();
    expect(await sut.models()).to.deep.equal(models);
  });
});
