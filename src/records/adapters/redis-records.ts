import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { OPERATOR } from '../auth/permissions.js';
import { type TokenRecord, TokenService, type UserRecord } from '../auth/token.service.js';
import { llmModelKind, type LlmModelRecord } from '../llm-model.js';
import { mcpServerKind, type McpServerRecord } from '../mcp-server.js';
import { RecordService } from '../record-service.js';
import type { Records } from '../records.js';
import { secretKind, type SecretRecord, type SecretUsers } from '../secret.js';
import { SEEDED_STATUSES, statusKind, type StatusRecord } from '../status.js';
import { NO_EXCEPTIONS, type WriteRules } from '../record-write-rules.js';
import { RecordChanges } from './record-changes.js';
import { RedisRecordCollection } from './redis-record-collection.adapter.js';
import { NO_REPLICA_WAIT, type ReplicaWait } from '../../kernel/redis/redis-replication.js';
import { RedisRevocationFeed } from './redis-revocation-feed.adapter.js';

/** Every record service over the collections of one RedisClient connection. */
/**
 * `rules`: what writers short of superuser may still do (the operator's allow-lists; none by
 * default). `replicaWait`: replicas every write must reach before it is answered. `otherSecretUsers`:
 * what else names secrets by their name, beside models and servers (knowledge-base repositories).
 */
export function createRecords(
  redis: RedisClient,
  prefix: string,
  rules: WriteRules = NO_EXCEPTIONS,
  replicaWait: ReplicaWait = NO_REPLICA_WAIT,
  otherSecretUsers: SecretUsers = async () => [],
): Records {
  const changes = new RecordChanges();
  /**
   * How a collection is read and written: `read-mostly`, few records read on every request and
   * rarely written, single reads served from the whole cached listing (models, secrets, statuses);
   * `listed`, single reads from the store, the listing cached while no write is heard (MCP servers,
   * which every health check writes; users); `written-often`, writes that no process hears of, the
   * listing checked against the version at each read (tokens: a delegated key each chat turn).
   */
  const collection = <R extends { id: string; created: string; last_updated: string }>(
    name: string,
    keyField: keyof R & string,
    use: 'read-mostly' | 'listed' | 'written-often',
  ) =>
    new RedisRecordCollection<R>(redis, {
      prefix,
      name,
      keyField,
      changes,
      announced: use !== 'written-often',
      pointReadsFromListing: use === 'read-mostly',
      replicaWait,
    });
  const statusCollection = collection<StatusRecord>('statuses', 'name', 'read-mostly');
  const serverCollection = collection<McpServerRecord>('mcp-servers', 'name', 'listed');
  const modelCollection = collection<LlmModelRecord>('llm-models', 'name', 'read-mostly');
  const statuses = new RecordService(statusKind, statusCollection);
  const secretUsers = async (name: string) => [
    ...(await modelCollection.all()).records.filter((model) => model.model_secret_key === name).map((model) => `LLM model ${model.name}`),
    ...(await serverCollection.all()).records
      .filter((server) => server.auth_secret_key === name || server.oauth_client_secret_key === name)
      .map((server) => `MCP server ${server.name}`),
    ...(await otherSecretUsers(name)),
  ];
  return {
    llmModels: new RecordService(llmModelKind(rules), modelCollection),
    mcpServers: new RecordService(mcpServerKind(statusCollection, rules), serverCollection),
    secrets: new RecordService(secretKind(rules, secretUsers), collection<SecretRecord>('secrets', 'name', 'read-mostly')),
    statuses,
    // The principal cache serves tokens.
    tokens: new TokenService(
      collection<UserRecord>('users', 'name', 'listed'),
      collection<TokenRecord>('tokens', 'key_hash', 'written-often'),
      new RedisRevocationFeed(redis, prefix),
    ),
    collections: { mcpServers: serverCollection, statuses: statusCollection },
    followChanges: () => changes.listen(redis, prefix),
    async seed() {
      for (const status of SEEDED_STATUSES) {
        if (!(await statuses.getByName(status.name))) {
          // A concurrent seeder may win the race; its record is just as good.
          await statuses.create(status, OPERATOR).catch((error: unknown) => {
            if (!(error instanceof Error && error.name === 'ValidationError')) throw error;
          });
        }
      }
    },
  };
}
