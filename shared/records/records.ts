import type { Redis } from 'ioredis';
import { RedisRecordCollection } from '../adapters/redis/redis-record-collection.js';
import { RedisRevocationFeed } from '../adapters/redis/redis-revocation-feed.js';
import { TokenService, type TokenRecord, type UserRecord } from '../auth/token.service.js';
import { llmModelKind, type LlmModelFields, type LlmModelRecord, type LlmModelView } from './llm-model.js';
import { mcpServerKind, type McpServerFields, type McpServerRecord, type McpServerView } from './mcp-server.js';
import { RecordService } from './record-service.js';
import { secretKind, type SecretFields, type SecretRecord, type SecretView } from './secret.js';
import { SEEDED_STATUSES, statusKind, type StatusFields, type StatusRecord, type StatusView } from './status.js';

/** Every record service, built on one Redis connection. */
export interface Records {
  llmModels: RecordService<LlmModelRecord, LlmModelFields, LlmModelView>;
  mcpServers: RecordService<McpServerRecord, McpServerFields, McpServerView>;
  secrets: RecordService<SecretRecord, SecretFields, SecretView>;
  statuses: RecordService<StatusRecord, StatusFields, StatusView>;
  tokens: TokenService;
  /** Creates the built-in statuses if missing; safe to run from many processes at once. */
  seed(): Promise<void>;
}

export function createRecords(redis: Redis, prefix: string): Records {
  const collection = <R extends { id: string; created: string; last_updated: string }>(name: string, keyField: keyof R & string) =>
    new RedisRecordCollection<R>(redis, { prefix, name, keyField });
  const statusCollection = collection<StatusRecord>('statuses', 'name');
  const statuses = new RecordService(statusKind, statusCollection);
  return {
    llmModels: new RecordService(llmModelKind, collection<LlmModelRecord>('llm-models', 'name')),
    mcpServers: new RecordService(mcpServerKind(statusCollection), collection<McpServerRecord>('mcp-servers', 'name')),
    secrets: new RecordService(secretKind, collection<SecretRecord>('secrets', 'name')),
    statuses,
    tokens: new TokenService(collection<UserRecord>('users', 'name'), collection<TokenRecord>('tokens', 'key_hash'), new RedisRevocationFeed(redis, prefix)),
    async seed() {
      for (const status of SEEDED_STATUSES) {
        if (!(await statuses.getByName(status.name))) {
          // A concurrent seeder may win the race; its record is just as good.
          await statuses.create(status).catch((error: unknown) => {
            if (!(error instanceof Error && error.name === 'ValidationError')) throw error;
          });
        }
      }
    },
  };
}
