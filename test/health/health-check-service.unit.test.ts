import { expect } from 'chai';
import type { CheckedServer, HealthChecker, HealthProbe } from '../../src/health/health-checker.port.js';
import { HealthCheckService } from '../../src/health/health-check.service.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { McpServerRecord } from '../../src/records/mcp-server.js';
import { SEEDED_STATUSES, type StatusRecord } from '../../src/records/status.js';
import { MemoryHealthStreaks, MemoryToolVersions } from '../support/fakes/memory-health-state.js';
import { MemoryRecordCollection } from '../support/fakes/memory-record-collection.js';
import { httpServerRecord } from '../support/mcp-fixtures/server-records.js';

const NOW = new Date('2026-03-01T10:17:30.000Z');
const PASS: HealthProbe = { ok: true, latencyMs: 12.5, error: null, url: 'http://mcp.example/health', method: 'http' };
const FAIL: HealthProbe = {
  ok: false,
  latencyMs: 3,
  error: 'connect ECONNREFUSED',
  url: 'http://mcp.example/health',
  method: 'http',
  failure: { kind: 'error' },
};

/** A checker that answers the probes it is given, in order, and counts the servers it checked. */
class ScriptedChecker implements HealthChecker {
  readonly checked: string[] = [];
  constructor(private readonly probes: HealthProbe[]) {}

  async check(server: CheckedServer): Promise<HealthProbe> {
    this.checked.push(server.name);
    const probe = this.probes.shift();
    if (!probe) throw new Error('no probe scripted for this check');
    return probe;
  }
}

describe(HealthCheckService.name, () => {
  let servers: MemoryRecordCollection<McpServerRecord>;
  let statuses: MemoryRecordCollection<StatusRecord>;
  let streaks: MemoryHealthStreaks;
  let versions: MemoryToolVersions;
  const statusId = (name: string) => `status-${name}`;

  const service = (checker: HealthChecker) =>
    new HealthCheckService({
      servers,
      statuses,
      checker,
      streaks,
      versions,
      thresholds: { fall: 2, rise: 3 },
      timeoutMs: 1_000,
      now: () => NOW,
    });
  const addServer = async (status: string, fields: Partial<McpServerRecord> = {}) => {
    const record = httpServerRecord('alpha', 'http://mcp.example', { status_id: statusId(status), ...fields });
    await servers.insert(record);
    return record;
  };
  const statusOf = async (id: string) => (await servers.get(id))?.status_id;

  beforeEach(async () => {
    servers = new MemoryRecordCollection('name');
    statuses = new MemoryRecordCollection('name');
    for (const status of SEEDED_STATUSES) await statuses.insert({ id: statusId(status.name), created: '', last_updated: '', ...status });
    streaks = new MemoryHealthStreaks();
    versions = new MemoryToolVersions();
  });

  it('takes a new server to Healthy at its first pass, stores what it found and drops cached tools', async () => {
    const server = await addServer('Unknown');
    const result = await service(new ScriptedChecker([PASS])).check(server.id, 'new', silentLogger());
    expect(result).to.deep.equal({
      server_id: server.id,
      status: 'Healthy',
      healthy: true,
      latency_ms: 12.5,
      error: null,
      url: PASS.url,
      method: 'http',
      changed: true,
    });
    expect(await servers.get(server.id)).to.deep.include({
      status_id: statusId('Healthy'),
      last_checked: NOW.toISOString(),
      last_error: null,
      latency_ms: 12.5,
    });
    expect(versions.versions.get(server.id)).to.equal(1);
  });

  it('turns a Healthy server Unhealthy only at HEALTH_FALL failures in a row', async () => {
    const server = await addServer('Healthy');
    const checks = service(new ScriptedChecker([FAIL, PASS, FAIL, FAIL]));
    const statusesSeen: (string | null)[] = [];
    for (let round = 0; round < 4; round++) statusesSeen.push((await checks.check(server.id, 'scheduled', silentLogger())).status);
    expect(statusesSeen).to.deep.equal(['Healthy', 'Healthy', 'Healthy', 'Unhealthy']);
    expect(await servers.get(server.id)).to.deep.include({ status_id: statusId('Unhealthy'), last_error: 'connect ECONNREFUSED' });
    expect(versions.versions.get(server.id), 'only the flip drops cached tools').to.equal(1);
  });

  it('turns an Unhealthy server Healthy only at HEALTH_RISE passes in a row', async () => {
    const server = await addServer('Unhealthy');
    const checks = service(new ScriptedChecker([PASS, PASS, PASS]));
    const changes: boolean[] = [];
    for (let round = 0; round < 3; round++) changes.push((await checks.check(server.id, 'scheduled', silentLogger())).changed);
    expect(changes).to.deep.equal([false, false, true]);
    expect(await statusOf(server.id)).to.equal(statusId('Healthy'));
  });

  it('leaves a server in Maintenance alone on a scheduled round', async () => {
    const server = await addServer('Maintenance');
    const checker = new ScriptedChecker([]);
    const result = await service(checker).check(server.id, 'scheduled', silentLogger());
    expect(result).to.include({ status: 'Maintenance', skipped: 'maintenance', changed: false });
    expect(checker.checked).to.deep.equal([]);
    expect(await servers.get(server.id)).to.deep.equal(server);
  });

  it('checks a server in Maintenance when asked, stores the result, keeps the status and counts nothing', async () => {
    const server = await addServer('Maintenance');
    const result = await service(new ScriptedChecker([FAIL])).check(server.id, 'manual', silentLogger());
    expect(result).to.include({ status: 'Maintenance', healthy: false, error: 'connect ECONNREFUSED', changed: false });
    expect(await servers.get(server.id)).to.deep.include({
      status_id: statusId('Maintenance'),
      last_error: 'connect ECONNREFUSED',
      last_checked: NOW.toISOString(),
    });
    expect(streaks.streaks.has(server.id)).to.equal(false);
    expect(versions.versions.get(server.id), 'a manual check refreshes the tools').to.equal(1);
  });

  it('answers gone for a server deleted before its check', async () => {
    const checker = new ScriptedChecker([]);
    const result = await service(checker).check('no-such-server', 'scheduled', silentLogger());
    expect(result).to.include({ server_id: 'no-such-server', status: null, skipped: 'gone' });
    expect(checker.checked).to.deep.equal([]);
  });

  it('keeps an edit made while the check ran and stores the result on top of it (compare-and-swap retry)', async () => {
    const server = await addServer('Unknown');
    servers.beforeSwap = (expected) => {
      servers.beforeSwap = undefined;
      servers.put({ ...expected, description: 'edited meanwhile' });
    };
    const result = await service(new ScriptedChecker([PASS])).check(server.id, 'new', silentLogger());
    expect(result).to.include({ status: 'Healthy', changed: true });
    expect(await servers.get(server.id)).to.deep.include({
      description: 'edited meanwhile',
      status_id: statusId('Healthy'),
      latency_ms: 12.5,
    });
    expect(servers.swaps).to.equal(2);
  });

  it('decides the status from the record as edited: an admin who set Maintenance meanwhile keeps it', async () => {
    const server = await addServer('Unknown');
    servers.beforeSwap = (expected) => {
      servers.beforeSwap = undefined;
      servers.put({ ...expected, status_id: statusId('Maintenance') });
    };
    const result = await service(new ScriptedChecker([FAIL])).check(server.id, 'scheduled', silentLogger());
    expect(result).to.include({ status: 'Maintenance', changed: false });
    expect(await statusOf(server.id)).to.equal(statusId('Maintenance'));
    expect(versions.versions.has(server.id)).to.equal(false);
  });

  it('answers gone for a server deleted while its check ran', async () => {
    const server = await addServer('Healthy');
    servers.beforeSwap = async () => {
      servers.beforeSwap = undefined;
      await servers.remove(server.id);
    };
    const result = await service(new ScriptedChecker([PASS])).check(server.id, 'scheduled', silentLogger());
    expect(result).to.include({ status: null, skipped: 'gone' });
    expect(await servers.get(server.id)).to.equal(null);
  });

  it('gives up, saying why, when the record changes at every attempt', async () => {
    const server = await addServer('Healthy');
    let edits = 0;
    servers.beforeSwap = (expected) => servers.put({ ...expected, description: `edit ${++edits}` });
    const error = await service(new ScriptedChecker([PASS]))
      .check(server.id, 'scheduled', silentLogger())
      .catch((thrown: unknown) => thrown as Error);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal(`the health of MCP server ${server.id} could not be stored: the record keeps changing`);
    expect(edits).to.equal(10);
  });
});
