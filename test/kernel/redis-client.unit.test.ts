import { expect } from 'chai';
import { createRedisClient, isClustered, waitForRedis } from '../../src/kernel/redis/redis-client.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';

describe('waitForRedis', () => {
  it('gives up at the first refused connection when told a refusal is final, long before its time limit', async () => {
    const client = createRedisClient({
      topology: { kind: 'single', url: `redis://127.0.0.1:${await freePort()}` },
      role: 'request',
      logger: silentLogger(),
    });
    try {
      const errorListeners = client.listenerCount('error');
      // A time limit past the test's own: only the refusal can end the wait in time.
      const waited = await waitForRedis(client, 60_000, { refusedIsFinal: true }).then(
        () => 'ready',
        (error: Error) => error.message,
      );
      expect(waited).to.equal('redis refused the connection');
      expect(client.listenerCount('error'), 'its error listener removed').to.equal(errorListeners);
    } finally {
      client.disconnect();
    }
  });
});

describe('createRedisClient', () => {
  it("takes the database it is given over REDIS_URL's (a path or a db parameter), and the URL's when given none", () => {
    const database = (url: string, db?: number) => {
      const client = createRedisClient({
        topology: { kind: 'single', url },
        role: 'request',
        logger: silentLogger(),
        ...(db === undefined ? {} : { db }),
        connectionName: 'never-connects',
      });
      client.disconnect();
      if (isClustered(client)) throw new Error('one server, not a cluster');
      return { db: Number(client.options.db), port: client.options.port, password: client.options.password };
    };
    expect(database('redis://:pw@127.0.0.1:1/5', 2)).to.deep.equal({ db: 2, port: 1, password: 'pw' });
    expect(database('redis://127.0.0.1:1/0', 2)).to.include({ db: 2 });
    expect(database('redis://127.0.0.1:1/?db=7', 2)).to.include({ db: 2 });
    expect(database('redis://127.0.0.1:1/5')).to.include({ db: 5 });
  });
});
