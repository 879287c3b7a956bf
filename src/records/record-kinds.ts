import type { Permission } from './auth/permissions.js';
import type { Schemas } from '../api/openapi-types.js';

/*
 * The record kinds, one row each: what the API, the store and the pages know a kind by. Node-free,
 * so that the web pages read it too; each kind's rules (defaults, views, filters, who may write
 * what) are in its own file, bound to its row in `records.ts`.
 */

/** What the API, the store and the pages know one record kind by (every name here is published: never renamed). */
export interface RecordKindRow {
  /** The API path of its records, a list; a record is `{path}{id}/`. */
  path: string;
  /** The collection's name in the store, in its keys and on the records-changed channel. */
  collection: string;
  /** The OpenAPI document's schema of a record as the API shows it. */
  schema: keyof Schemas;
  /** The schema a client writes; a kind without one is read-only through the API (seeded). */
  input?: keyof Schemas;
  /** Nautobot's permissions on the kind, as its operations in the document require them. */
  permissions: { view: Permission; add?: Permission; change?: Permission; delete?: Permission };
  /**
   * How the collection is read and written: `read-mostly`, few records read on every request and
   * rarely written, single reads served from the whole cached listing; `listed`, single reads from
   * the store and the listing cached while no write is heard (MCP servers, which every health
   * check writes).
   */
  use: 'read-mostly' | 'listed';
}

export const RECORD_KINDS = {
  llmModels: {
    path: '/api/plugins/ai-ops/llm-models/',
    collection: 'llm-models',
    schema: 'LLMModel',
    input: 'LLMModelInput',
    permissions: {
      view: 'ai_ops.view_llmmodel',
      add: 'ai_ops.add_llmmodel',
      change: 'ai_ops.change_llmmodel',
      delete: 'ai_ops.delete_llmmodel',
    },
    use: 'read-mostly',
  },
  mcpServers: {
    path: '/api/plugins/ai-ops/mcp-servers/',
    collection: 'mcp-servers',
    schema: 'MCPServer',
    input: 'MCPServerInput',
    permissions: {
      view: 'ai_ops.view_mcpserver',
      add: 'ai_ops.add_mcpserver',
      change: 'ai_ops.change_mcpserver',
      delete: 'ai_ops.delete_mcpserver',
    },
    use: 'listed',
  },
  statuses: {
    path: '/api/extras/statuses/',
    collection: 'statuses',
    schema: 'Status',
    permissions: { view: 'extras.view_status' },
    use: 'read-mostly',
  },
  secrets: {
    path: '/api/extras/secrets/',
    collection: 'secrets',
    schema: 'Secret',
    input: 'SecretInput',
    permissions: {
      view: 'extras.view_secret',
      add: 'extras.add_secret',
      change: 'extras.change_secret',
      delete: 'extras.delete_secret',
    },
    use: 'read-mostly',
  },
} as const satisfies Record<string, RecordKindRow>;

export type KindName = keyof typeof RECORD_KINDS;

export const KIND_NAMES = Object.keys(RECORD_KINDS) as KindName[];

/** The kinds clients write through the API (those with an input schema). */
export type WritableKind = { [K in KindName]: (typeof RECORD_KINDS)[K] extends { input: keyof Schemas } ? K : never }[KindName];

/** A record of kind `K` as its service shows it: the router adds its own API address (`url`), which only a request knows. */
export type ServedRecord<K extends KindName> = Omit<Schemas[(typeof RECORD_KINDS)[K]['schema']], 'url'>;

/** What a client writes to a record of kind `K`. */
export type KindInput<K extends WritableKind> = Schemas[(typeof RECORD_KINDS)[K]['input']];

/**
 * One value for each kind, built from its name: `T` says what each kind's is, which the compiler
 * cannot follow from a name to its row's types, so `build` is trusted to give it.
 */
export function perKind<T extends Record<KindName, unknown>>(build: (name: KindName) => T[KindName]): T {
  return Object.fromEntries(KIND_NAMES.map((name) => [name, build(name)])) as T;
}
