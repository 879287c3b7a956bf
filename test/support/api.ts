import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServer } from '../../src/roles/api.js';
import { loadConfig } from '../../src/roles/config.js';
import { createRedisClient, waitForRedis, type RedisClient } from '../../src/kernel/redis/redis-client.js';
import { RedisRecordCollection } from '../../src/records/adapters/redis-record-collection.adapter.js';
import type { BaseRecord } from '../../src/records/record-collection.port.js';
import type { Permission } from '../../src/records/auth/permissions.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import type { Records } from '../../src/records/records.js';
import { callApi, type JsonReply } from './http.js';
import { LOOPBACK_ALLOW } from './outbound.js';
import { startTestRedis, type TestRedis } from './redis.js';

export interface TestApi {
  baseUrl: string;
  redis: TestRedis;
  records: Records;
  keyPrefix: string;
  /** Direct access to a stored collection, for arranging state the API cannot write. */
  collection<R extends BaseRecord>(name: string, keyField?: keyof R & string): RedisRecordCollection<R>;
  /** A superuser token key. */
  adminKey: string;
  api: ApiServer;
  apiRedis: RedisClient;
  /** Creates a token and returns its key. */
  token(options?: {
    permissions?: Permission[];
    superuser?: boolean;
    writeEnabled?: boolean;
    expires?: Date | null;
    username?: string;
  }): Promise<string>;
  /** fetch against the API with a token (the admin's unless `key` is given; `null` sends none). */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<JsonReply>;
  close(): Promise<void>;
}

let prefixCounter = 0;

/** The real API on a free port over its own redis-server, responses validated against the document. */
/** `env`: settings on top of the defaults (CHAT_WAIT_S, ...). No drain delay unless `env` sets one: closing waits for nothing. */
export async function startTestApi(existing?: TestRedis, env: Record<string, string> = {}): Promise<TestApi> {
  const redis = existing ?? (await startTestRedis());
  const keyPrefix = `t${process.pid}x${prefixCounter++}`;
  const logger = silentLogger();
  const apiRedis = createRedisClient({ topology: redis.url, role: 'request', logger });
  await waitForRedis(apiRedis, 5_000);
  // Never the project's own ./data: a suite's files stay in a folder of its own.
  const dataDir = env.DATA_DIR ? undefined : mkdtempSync(path.join(os.tmpdir(), 'aiops-api-data-'));
  const config = loadConfig({
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: keyPrefix,
    DRAIN_DELAY_MS: '0',
    OUTBOUND_ALLOW: LOOPBACK_ALLOW,
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ...env,
  });
  const api = await startApiServer({ config, redis: apiRedis, port: 0, logger, version: 'test', validateResponses: true });
  const records = createRecords(redis.client, keyPrefix);
  const token: TestApi['token'] = async (options = {}) =>
    (
      await records.tokens.create({
        username: options.username ?? 'tester',
        superuser: options.superuser ?? false,
        permissions: options.permissions ?? [],
        writeEnabled: options.writeEnabled ?? true,
        expires: options.expires ?? null,
      })
    ).key;
  const adminKey = await token({ superuser: true, username: 'admin' });
  const baseUrl = `http://127.0.0.1:${api.port}`;
  return {
    baseUrl,
    redis,
    records,
    keyPrefix,
    collection: (name, keyField = 'name' as never) => new RedisRecordCollection(redis.client, { prefix: keyPrefix, name, keyField }),
    adminKey,
    api,
    apiRedis,
    token,
    call: (method, path, options = {}) =>
      callApi(baseUrl, method, path, { ...options, key: options.key === undefined ? adminKey : options.key }),
    async close() {
      await api.close();
      apiRedis.disconnect();
      if (!existing) await redis.destroy();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
