import type { TokenService } from './auth/token.service.js';
import type { LlmModelFields, LlmModelRecord, LlmModelView } from './llm-model.js';
import type { McpServerFields, McpServerRecord, McpServerView } from './mcp-server.js';
import type { RecordCollection } from './record-collection.port.js';
import type { RecordService } from './record-service.js';
import type { SecretFields, SecretRecord, SecretView } from './secret.js';
import type { StatusFields, StatusRecord, StatusView } from './status.js';

/** Every record service of one store (see createRecords in adapters/redis-records.ts). */
export interface Records {
  llmModels: RecordService<LlmModelRecord, LlmModelFields, LlmModelView>;
  mcpServers: RecordService<McpServerRecord, McpServerFields, McpServerView>;
  secrets: RecordService<SecretRecord, SecretFields, SecretView>;
  statuses: RecordService<StatusRecord, StatusFields, StatusView>;
  tokens: TokenService;
  /** The stores under the services, for what only workers write (health results): for wiring modules (roles/) only. */
  collections: { mcpServers: RecordCollection<McpServerRecord>; statuses: RecordCollection<StatusRecord> };
  /** Creates the built-in statuses if missing; safe to run from many processes at once. */
  seed(): Promise<void>;
  /**
   * Hears the record writes of every process from now on, so that reads served from cached
   * listings cost no round trip while nothing changed (for long-running processes). Returns the stop.
   */
  followChanges(): () => void;
}
