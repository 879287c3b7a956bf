import { expect } from 'chai';
import { TurnTextWriter } from '../../src/chat/turn-text-writer.js';
import type { TurnTextPiece } from '../../src/chat/turn-text.port.js';
import { until } from '../support/until.js';

/** A feed that records what it was sent, each write taking a moment (so order matters). */
function recordingFeed() {
  const sent: TurnTextPiece[] = [];
  return {
    sent,
    append: async (_jobId: string, piece: TurnTextPiece) => void (await new Promise((resolve) => setImmediate(resolve)), sent.push(piece)),
  };
}

describe(TurnTextWriter.name, () => {
  it('gathers deltas into pieces, starts each step with a reset and sends everything, in order, by flush', async () => {
    const feed = recordingFeed();
    const sut = new TurnTextWriter(feed, 'job-1', 60_000);
    const first = sut.step(1);
    for (const word of ['Let ', 'me ', 'look.']) first.text(word);
    const second = sut.step(2);
    second.text('r1 is ');
    second.text('in ams.');
    await sut.flush();
    expect(feed.sent).to.deep.equal([
      { step: 1, reset: true, text: 'Let me look.' },
      { step: 2, reset: true, text: 'r1 is in ams.' },
    ]);
  });

  it('sends a reset without text only for a step whose text was already sent (a retried provider call)', async () => {
    const feed = recordingFeed();
    const sut = new TurnTextWriter(feed, 'job-1', 60_000);
    sut.step(1);
    await sut.flush();
    expect(feed.sent, 'a step that wrote nothing sends nothing').to.deep.equal([]);
    const step = sut.step(2);
    step.text('half an ');
    await sut.flush();
    step.restart();
    await sut.flush();
    step.text('whole answer');
    await sut.flush();
    expect(feed.sent).to.deep.equal([
      { step: 2, reset: true, text: 'half an ' },
      { step: 2, reset: true, text: '' },
      { step: 2, reset: false, text: 'whole answer' },
    ]);
  });

  it('sends by itself after the interval, and a failed write loses only its piece', async () => {
    const sent: TurnTextPiece[] = [];
    let failNext = true;
    const feed = {
      append: async (_jobId: string, piece: TurnTextPiece) => {
        if (failNext) {
          failNext = false;
          throw new Error('Redis went away');
        }
        sent.push(piece);
      },
    };
    const sut = new TurnTextWriter(feed, 'job-1', 5);
    const step = sut.step(1);
    step.text('lost ');
    await until(() => !failNext, 1_500, 'the first timed write', 1);
    step.text('kept');
    await until(() => sent.length > 0, 1_500, 'the second timed write', 1);
    expect(sent).to.deep.equal([{ step: 1, reset: false, text: 'kept' }]);
    await sut.flush();
  });
});
