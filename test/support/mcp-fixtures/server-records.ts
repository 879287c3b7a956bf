import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { mcpServerDefaults, type McpServerRecord } from '../../../src/records/mcp-server.js';
import { packagePath } from '../../../src/kernel/package-root.js';

const STDIO_FIXTURE = path.join(packagePath('test/support/mcp-fixtures'), 'stdio-fixture.ts');

/** A stored-record shape for an http server (tests of the manager and checkers need no Redis). */
export function httpServerRecord(name: string, url: string, fields: Partial<McpServerRecord> = {}): McpServerRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    created: now,
    last_updated: now,
    ...mcpServerDefaults(),
    name,
    status_id: '',
    url,
    last_checked: null,
    last_error: null,
    latency_ms: null,
    last_check_method: null,
    ...fields,
  };
}

/** Command and args that start the stdio fixture (see stdio-fixture.ts for the flags). */
export function stdioCommand(label: string, ...flags: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', STDIO_FIXTURE, label, ...flags] };
}

export function stdioServerRecord(name: string, flags: string[] = [], fields: Partial<McpServerRecord> = {}): McpServerRecord {
  return httpServerRecord(name, '', { protocol: 'stdio', ...stdioCommand(name, ...flags), ...fields });
}
