/**
 * The time a write's plan adds before its approval is shown.
 *
 * The built-in platform tools' review of a proposed `platform_dynamic_api_request` call (what the
 * agent loop waits for before it pauses the turn and the page shows the approval) against a platform
 * on loopback serving the NetBox 4.2.2 description (`test/fixtures/openapi/`) and a few objects per
 * resource: the review of a GET (no plan: the baseline), and of a PATCH of one device (the device and
 * the new site read), a DELETE of one device, a POST creating a device (its site, role and type looked
 * up) and a bulk DELETE of 20 VLANs (each read). Reports p50 and p95 of each, and of the plan alone
 * (the review less the baseline's p50). BENCH_CALLS (default 200).
 *
 *   node --import tsx bench/write-plans.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/roles/config.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { buildPlatformToolServer } from '../src/roles/mcp.js';
import { BuiltinPlatformTools } from '../src/tool-server/builtin-tools.adapter.js';
import { fixture } from '../test/endpoint-search/support/stub-platform.js';
import { startObjectPlatform } from '../test/support/object-platform.js';
import { PlatformObjects } from '../test/support/platform-objects.js';
import { benchFigures, lower } from './support/figures.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const TOOL = 'platform_dynamic_api_request';
const figures = benchFigures(import.meta.url, { BENCH_CALLS: CALLS, description: 'NetBox 4.2.2' });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const f = (n: number) => n.toFixed(2);

const objects = new PlatformObjects({
  ids: 'integer',
  references: { site: '/api/dcim/sites/', role: '/api/dcim/device-roles/', device_type: '/api/dcim/device-types/' },
});
const [ams1, ams2] = objects.seed('/api/dcim/sites/', [
  { name: 'AMS1', slug: 'ams1' },
  { name: 'AMS2', slug: 'ams2' },
]);
const [role] = objects.seed('/api/dcim/device-roles/', [{ name: 'Leaf', slug: 'leaf' }]);
const [model] = objects.seed('/api/dcim/device-types/', [{ model: 'DCS-7050', slug: 'dcs-7050' }]);
const devices = objects.seed(
  '/api/dcim/devices/',
  Array.from({ length: 30 }, (_, index) => ({
    name: `leaf-${index}`,
    site: ams1!.id,
    role: role!.id,
    device_type: model!.id,
    status: 'active',
  })),
);
const vlans = objects.seed(
  '/api/ipam/vlans/',
  Array.from({ length: 30 }, (_, index) => ({ vid: 100 + index, name: `vlan-${100 + index}`, status: 'active' })),
);
const platform = await startObjectPlatform(fixture('netbox-openapi.json'), objects);
const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-plans-'));
const config = loadConfig({
  PLATFORM_URL_LOCAL: platform.url,
  PLATFORM_TOKEN: 'bench-service-token-0123456789',
  EMBEDDING_MODEL: 'none',
  DATA_DIR: dir,
});
const parts = await buildPlatformToolServer(config, silentLogger());
const tools = new BuiltinPlatformTools({ deps: parts.deps, version: 'bench', platformIsSelf: false });
const context = { userId: 'bench', signal: AbortSignal.timeout(600_000) };

const device = (index: number) => `/api/dcim/devices/${String(devices[index % devices.length]!.id)}/`;
const kinds: Array<{ name: string; key: string; args: (index: number) => Record<string, unknown> }> = [
  { name: 'GET (no plan)', key: 'get', args: () => ({ method: 'GET', path: '/api/dcim/devices/', params: { site: 'ams1' } }) },
  {
    name: 'PATCH one device',
    key: 'patch_device',
    args: (index) => ({ method: 'PATCH', path: device(index), body: { status: 'planned', site: ams2!.id } }),
  },
  { name: 'DELETE one device', key: 'delete_device', args: (index) => ({ method: 'DELETE', path: device(index) }) },
  {
    name: 'POST a device',
    key: 'post_device',
    args: (index) => ({
      method: 'POST',
      path: '/api/dcim/devices/',
      body: { name: `new-${index}`, site: ams1!.id, role: role!.id, device_type: model!.id, status: 'planned' },
    }),
  },
  {
    name: 'bulk DELETE of 20 VLANs',
    key: 'bulk_delete_20_vlans',
    args: () => ({ method: 'DELETE', path: '/api/ipam/vlans/', body: vlans.slice(0, 20).map(({ id }) => ({ id })) }),
  },
];

/** One review: its time, and that it planned (a write) or not (a read), without errors. */
async function review(args: Record<string, unknown>): Promise<number> {
  const began = performance.now();
  const reviewed = await tools.review(TOOL, args, context);
  const took = performance.now() - began;
  if (reviewed.refusal || (args.method !== 'GET') !== Boolean(reviewed.plan))
    throw new Error(`unexpected review: ${JSON.stringify(reviewed)}`);
  return took;
}

for (const kind of kinds) for (let i = 0; i < 20; i++) await review(kind.args(i)); // warm up: index, JIT, connections
const times = new Map(kinds.map((kind) => [kind.name, [] as number[]]));
for (let i = 0; i < CALLS; i++) for (const kind of kinds) times.get(kind.name)!.push(await review(kind.args(i)));

const baseline = percentile(times.get(kinds[0]!.name)!, 50);
console.log(
  `review of a proposed request tool call, built-in tools, NetBox 4.2.2 description on loopback, ${CALLS} calls each, one at a time, load average ${os.loadavg()[0]!.toFixed(1)}`,
);
for (const kind of kinds) {
  const values = times.get(kind.name)!;
  const p50 = percentile(values, 50);
  const p95 = percentile(values, 95);
  const added = kind === kinds[0] ? '' : `   plan adds p50 ${f(p50 - baseline)} ms, p95 ${f(p95 - baseline)} ms`;
  figures.print(`  ${kind.name.padEnd(26)} p50 ${f(p50)} ms   p95 ${f(p95)} ms${added}`, {
    [`${kind.key}.p50`]: lower(p50, 'ms'),
    [`${kind.key}.p95`]: lower(p95, 'ms'),
    ...(kind === kinds[0]
      ? {}
      : { [`${kind.key}.plan_adds_p50`]: lower(p50 - baseline, 'ms'), [`${kind.key}.plan_adds_p95`]: lower(p95 - baseline, 'ms') }),
  });
}
if (objects.writes.length > 0) throw new Error('a plan wrote to the platform');

await parts.close();
await platform.close();
rmSync(dir, { recursive: true, force: true });
