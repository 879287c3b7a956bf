import { expect } from 'chai';
import { Writable } from 'node:stream';
import winston from 'winston';
import { quietErrorLog } from '../../src/kernel/bullmq/error-log.js';

/** A logger whose lines are kept as parsed objects. */
function keptLogger(): { logger: winston.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return {
    logger: winston.createLogger({ format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] }),
    lines,
  };
}

describe(quietErrorLog.name, () => {
  it('logs an outage once however each retry words it, and again once the quiet time has passed', () => {
    const { logger, lines } = keptLogger();
    let now = 0;
    const log = quietErrorLog(logger, 'worker error', { queue: 'chat' }, { quietMs: 60_000, now: () => now });
    for (const message of [
      'connect ECONNREFUSED 127.0.0.1:6390',
      'Connection is closed.',
      'read ECONNRESET',
      'connect ECONNREFUSED 127.0.0.1:6390',
    ]) {
      log(new Error(message));
      now += 1_000;
    }
    expect(lines).to.deep.equal([{ level: 'warn', message: 'worker error', queue: 'chat', error: 'connect ECONNREFUSED 127.0.0.1:6390' }]);
    now = 61_000;
    log(new Error('Connection is closed.'));
    expect(lines.map(({ error }) => error)).to.deep.equal(['connect ECONNREFUSED 127.0.0.1:6390', 'Connection is closed.']);
  });

  it('logs each other error on its own, once per quiet time', () => {
    const { logger, lines } = keptLogger();
    const log = quietErrorLog(logger, 'queue error', { queue: 'index' }, { now: () => 0 });
    for (const message of [
      'NOSCRIPT No matching script',
      'connect ECONNREFUSED 127.0.0.1:1',
      'NOSCRIPT No matching script',
      'OOM command not allowed',
    ])
      log(new Error(message));
    expect(lines.map(({ error }) => error)).to.deep.equal([
      'NOSCRIPT No matching script',
      'connect ECONNREFUSED 127.0.0.1:1',
      'OOM command not allowed',
    ]);
  });
});
