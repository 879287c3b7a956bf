import type { Redis } from 'ioredis';
import { RecordChanges } from '../adapters/redis/record-changes.js';
import { RedisRecordCollection } from '../adapters/redis/redis-record-collection.js';
import { RedisRevocationFeed } from '../adapters/redis/redis-revocation-feed.js';
import { TokenService, type TokenRecord, type UserRecord } from '../auth/token.service.js';
import { llmModelKind, type LlmModelFields, type LlmModelRecord, type LlmModelView } from './llm-model.js';
import { mcpServerKind, type McpServerFields, type McpServerRecord, type McpServerView } from './mcp-server.js';
import type { RecordCollection } from './record-collection.js';
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
  /** The stores under the services, for what only workers write (health results). */
  collections: { mcpServers: RecordCollection<McpServerRecord>; statuses: RecordCollection<StatusRecord> };
  /** Creates the built-in statuses if missing; safe to run from many processes at once. */
  seed(): Promise<void>;
  /**
   * Hears the record writes of every process from now on, so that reads served from cached
   * listings cost no round trip while nothing changed (for long-running processes). Returns the stop.
   */
  followChanges(): () => void;
}

export function createRecords(redis: Redis, prefix: string): Records {
  const changes = new RecordChanges();
  /**
   * `readMostly`: few records, read on every request, rarely written: single reads are served from
   * the whole cached listing. Not MCP servers (every health check writes one) nor tokens (many).
   */
  const collection = <R extends { id: string; created: string; last_updated: string }>(name: string, keyField: keyof R & string, readMostly: boolean) =>
    new RedisRecordCollection<R>(redis, { prefix, name, keyField, changes, pointReadsFromListing: readMostly });
  const statusCollection = collection<StatusRecord>('statuses', 'name', true);
  const serverCollection = collection<McpServerRecord>('mcp-servers', 'name', false);
  const statuses = new RecordService(statusKind, statusCollection);
  return {
    llmModels: new RecordService(llmModelKind, collection<LlmModelRecord>('llm-models', 'name', true)),
    mcpServers: new RecordService(mcpServerKind(statusCollection), serverCollection),
    secrets: new RecordService(secretKind, collection<SecretRecord>('secrets', 'name', true)),
    statuses,
    // The principal cache serves tokens.
    tokens: new TokenService(collection<UserRecord>('users', 'name', false), collection<TokenRecord>('tokens', 'key_hash', false), new RedisRevocationFeed(redis, prefix)),
    collections: { mcpServers: serverCollection, statuses: statusCollection },
    followChanges: () => changes.listen(redis, prefix),
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
