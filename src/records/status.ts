import type { Schemas } from '../api/openapi-types.js';
import type { BaseRecord } from './record-collection.port.js';
import type { Filters, RecordKind } from './record-service.js';
import { textMatches } from './text-match.js';

/** The statuses of MCP servers; health checks move servers between the first three, Maintenance is an admin's and never changed by a check. */
export const HealthStatus = {
  Healthy: 'Healthy',
  Unhealthy: 'Unhealthy',
  Unknown: 'Unknown',
  Maintenance: 'Maintenance',
} as const;

/** A status as the OpenAPI document's Status shows it (statuses are seeded, not written through the API). */
export type StatusFields = Pick<Schemas['Status'], 'name' | 'description' | 'color'>;

export type StatusRecord = BaseRecord & StatusFields;
export type StatusView = StatusRecord & { display: string };

/** The statuses an MCP server can be in; seeded on start-up, idempotently. */
export const SEEDED_STATUSES: StatusFields[] = [
  { name: 'Healthy', description: 'Passing health checks; its tools are offered to the agent.', color: '4caf50' },
  { name: 'Unhealthy', description: 'Failing health checks; not used until it recovers.', color: 'f44336' },
  { name: 'Unknown', description: 'Not checked yet (new servers start here).', color: '9e9e9e' },
  { name: 'Maintenance', description: 'Taken out by an admin: never checked, never used.', color: 'ff9800' },
];

export const statusKind = (): RecordKind<StatusRecord, StatusFields, StatusView> => ({
  label: 'status',
  defaults: () => ({ description: '', color: '9e9e9e' }),
  writable: ({ name, description, color }) => ({ name, description, color }),
  toRecord: async (fields, base) => ({ ...base, ...fields }),
  present: async (records) => records.map((record) => ({ ...record, display: record.name })),
  filter: async (filters: Filters) => (record) =>
    (filters.name === undefined || record.name === filters.name) && textMatches(filters.q, record.name, record.description),
  seeds: SEEDED_STATUSES,
});
