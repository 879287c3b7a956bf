import { expect } from 'chai';
import { createRedisClient, waitForRedis } from '../../src/kernel/redis/redis-client.js';
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
