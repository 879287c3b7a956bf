import type { Streak } from '../../../src/health/health-policy.js';
import type { HealthStreakStore } from '../../../src/health/health-streaks.port.js';
import type { ToolVersionStore } from '../../../src/mcp-client/tool-versions.port.js';

/** Consecutive pass and failure counts per server, in memory. */
export class MemoryHealthStreaks implements HealthStreakStore {
  readonly streaks = new Map<string, Streak>();

  async record(serverId: string, passed: boolean): Promise<Streak> {
    const before = this.streaks.get(serverId) ?? { passes: 0, fails: 0 };
    const after = passed ? { passes: before.passes + 1, fails: 0 } : { passes: 0, fails: before.fails + 1 };
    this.streaks.set(serverId, after);
    return after;
  }

  async forget(serverId: string): Promise<void> {
    this.streaks.delete(serverId);
  }
}

/** Tool-list versions per server, in memory. */
export class MemoryToolVersions implements ToolVersionStore {
  readonly versions = new Map<string, number>();

  async get(serverIds: string[]): Promise<Map<string, number>> {
    return new Map(serverIds.map((id) => [id, this.versions.get(id) ?? 0]));
  }

  async bump(serverId: string): Promise<void> {
    this.versions.set(serverId, (this.versions.get(serverId) ?? 0) + 1);
  }

  async forget(serverId: string): Promise<void> {
    this.versions.delete(serverId);
  }
}
