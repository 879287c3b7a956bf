// A process that takes one knowledge-base lock and holds it until it is killed, as an index worker
// does mid-run. Settings come from the environment: REDIS_URL, KEY_PREFIX, LOCK_NAME, EXPIRY_MS.
import { openRedisConnection } from '../../../src/kernel/redis/redis-client.js';
import { RedisKnowledgeLocks } from '../../../src/knowledge/adapters/redis-knowledge-locks.adapter.js';

const env = (name: string): string =>
  process.env[name] ??
  (() => {
    throw new Error(`${name} is not set`);
  })();
const client = openRedisConnection(env('REDIS_URL'), { maxRetriesPerRequest: null });
const locks = new RedisKnowledgeLocks(client, env('KEY_PREFIX'), Number(env('EXPIRY_MS')));
await locks.acquire(env('LOCK_NAME'), { waitMs: 0 });
console.log('held');
// Held (and renewed) until the process is killed.
setInterval(() => undefined, 60_000);
