import type { TokenService } from './auth/token.service.js';
import { llmModelKind } from './llm-model.js';
import { mcpServerKind } from './mcp-server.js';
import type { BaseRecord, RecordCollection } from './record-collection.port.js';
import type { KindName } from './record-kinds.js';
import type { RecordKind, RecordService } from './record-service.js';
import type { WriteRules } from './record-write-rules.js';
import { secretKind, type SecretUsers } from './secret.js';
import { statusKind, type StatusRecord } from './status.js';

/** What a kind's rules may need beyond its own records. */
export interface KindContext {
  /** What writers short of superuser may still do (the operator's allow-lists). */
  rules: WriteRules;
  /** The statuses, which MCP servers name. */
  statuses: RecordCollection<StatusRecord>;
  /** The records that name a secret by its name (their credential). */
  secretUsers: SecretUsers;
}

/** Each record kind's rules, by its row of RECORD_KINDS (record-kinds.ts): a row without them does not compile. */
export const KIND_RULES = {
  llmModels: llmModelKind,
  mcpServers: mcpServerKind,
  statuses: statusKind,
  secrets: secretKind,
} satisfies Record<KindName, (context: KindContext) => { label: string }>;

type RulesOf<K extends KindName> = ReturnType<(typeof KIND_RULES)[K]>;

/** The stored record of kind `K`. */
export type StoredOf<K extends KindName> = Awaited<ReturnType<RulesOf<K>['toRecord']>>;

/** The service of each record kind, by its name in RECORD_KINDS. */
export type KindServices = {
  [K in KindName]: RulesOf<K> extends RecordKind<infer S, infer W, infer O> ? RecordService<S, W, O> : never;
};

/** Every record service of one store (see createRecords in adapters/redis-records.ts). */
export interface Records extends KindServices {
  tokens: TokenService;
  /** The stores under the services, for what only workers write (health results): for wiring modules (roles/) only. */
  collections: { [K in KindName]: RecordCollection<StoredOf<K>> };
  /** Creates each kind's seeded records if missing; safe to run from many processes at once. */
  seed(): Promise<void>;
  /**
   * Hears the record writes of every process from now on, so that reads served from cached
   * listings cost no round trip while nothing changed (for long-running processes). Returns the stop.
   */
  followChanges(): () => void;
}

/** What every kind stores, for code over all of them. */
export type StoredRecord = BaseRecord & { name: string };
