import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Schemas } from '../../src/api/openapi-types.js';
import type { WritePlan } from '../../src/write-plans/write-plan.js';
import { fixture } from '../endpoint-search/support/stub-platform.js';
import { startObjectPlatform, type ObjectPlatform } from '../support/object-platform.js';
import { PlatformObjects } from '../support/platform-objects.js';
import { protocolOf, replyFor, type StubRequest } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { readEvents, startChatHarness, type ChatHarness } from './chat-harness.js';
import { toolResults } from './support/approved-call.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const AUDIT = '/api/plugins/ai-ops/audit-log/';
const DEVICES = '/api/dcim/devices/';
const VLANS = '/api/ipam/vlans/';
const PERSONAL_TOKEN = 'personal-token-0123456789';

type ChatApproval = Schemas['ChatApproval'];

describe('write plans in chat turns, on a NetBox 4.2.2 platform', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let objects: PlatformObjects;
  let platform: ObjectPlatform;
  let sut: ChatHarness;
  let dataDir: string;
  let key: string;
  const ids: Record<string, number> = {};

  before(async () => {
    objects = new PlatformObjects({
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
      DEVICES,
      ['leaf-1', 'leaf-2', 'leaf-3', 'leaf-4'].map((name) => ({
        name,
        site: ams1!.id,
        role: role!.id,
        device_type: model!.id,
        status: 'active',
      })),
    );
    objects.seed(
      VLANS,
      Array.from({ length: 8 }, (_, index) => ({ vid: 100 + index, name: `vlan-${100 + index}`, status: 'active' })),
    );
    Object.assign(ids, { ams1: ams1!.id, ams2: ams2!.id, role: role!.id, model: model!.id });
    devices.forEach((device, index) => (ids[`leaf${index + 1}`] = device.id as number));
    platform = await startObjectPlatform(fixture('netbox-openapi.json'), objects);
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-plans-'));
    sut = await startChatHarness(redis, {
      env: {
        AGENT_BUILTIN_TOOLS: 'true',
        AGENT_MAX_STEPS: '3',
        DATA_DIR: dataDir,
        EMBEDDING_MODEL: 'none',
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: 'service-token-0123456789',
        PLATFORM_TOKEN_KEY: 'a-key-of-at-least-thirty-two-characters',
        WRITE_MAX_OBJECTS: '5',
      },
    });
    await sut.model({ name: 'agent' });
    key = await sut.token('nora');
    expect((await sut.call('PUT', '/api/plugins/ai-ops/platform-token/', { key, body: { token: PERSONAL_TOKEN } })).status).to.equal(204);
  });
  after(async () => {
    await sut?.close();
    await platform?.close();
    await redis?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The model calls the API request tool once with `args`, then answers 'done'. */
  function propose(args: Record<string, unknown>): void {
    sut.stub.respondWith(
      (request: StubRequest) =>
        replyFor(protocolOf(request.path), '', [{ id: 'call_1', name: 'platform_dynamic_api_request', arguments: args }]),
      (request: StubRequest) => replyFor(protocolOf(request.path), 'done'),
    );
  }

  /** Asks; the turn must wait for a decision. Answers its status path and the call that waits, as the job's status shows it. */
  async function paused(): Promise<{ job: string; approval: ChatApproval; plan: WritePlan }> {
    const reply = await sut.call('POST', CHAT, { key, body: { message: 'do it' } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(202);
    const job = String(reply.body.status_url);
    return { job, ...(await waiting(job, () => true)) };
  }

  /** The call the turn waits for, once it waits for one that passes `test`. */
  async function waiting(job: string, test: (approval: ChatApproval) => boolean): Promise<{ approval: ChatApproval; plan: WritePlan }> {
    let approval: ChatApproval | undefined;
    await until(
      async () => {
        const { status, approvals } = (await sut.call('GET', job, { key })).body as Schemas['ChatJob'];
        approval = status === 'awaiting_approval' ? approvals?.[0] : undefined;
        return approval !== undefined && test(approval);
      },
      30_000,
      'the call to wait for a decision',
    );
    expect(approval!.plan, 'the plan').to.be.an('object');
    return { approval: approval!, plan: approval!.plan as WritePlan };
  }

  const decide = async (job: string, approve = true) =>
    expect((await sut.call('POST', `${job}approvals/`, { key, body: { decisions: [{ id: 'call_1', approve }] } })).status).to.equal(202);

  async function completed(job: string): Promise<void> {
    await until(async () => (await sut.call('GET', job, { key })).body.status === 'completed', 30_000, 'the turn to complete');
  }

  /** A turn that never waits: answered at once; the tool result the model got. */
  async function answeredAtOnce(): Promise<string> {
    const first = sut.stub.requests.length;
    const reply = await sut.call('POST', CHAT, { key, body: { message: 'do it' } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return toolResults(sut.stub.requests[first + 1]).join('\n');
  }

  const changesOf = (plan: WritePlan) =>
    plan.objects.flatMap((object) => object.changes.map(({ field, before, after }) => ({ field, before, after })));

  it('shows a PATCH as before → after in the job, its event and the audit log, and makes it once approved, read back as planned', async () => {
    propose({ method: 'PATCH', path: `${DEVICES}${ids.leaf1}/`, body: { status: 'planned', site: ids.ams2 } });
    const { job, plan } = await paused();
    expect(plan).to.deep.include({ summary: 'Update device leaf-1', count: 1, errors: [] });
    expect(changesOf(plan)).to.deep.equal([
      { field: 'status', before: 'active', after: 'planned' },
      { field: 'site', before: 'AMS1', after: 'AMS2' },
    ]);
    expect(objects.writes).to.deep.equal([]);

    const events = await fetch(`${sut.baseUrl}${job}events`, { headers: { authorization: `Token ${key}` } });
    await decide(job);
    const required = (await readEvents(events)).find(([event]) => event === 'approval_required');
    expect(required![1].approvals[0].plan.summary).to.equal('Update device leaf-1');
    await completed(job);
    expect(objects.get(DEVICES, ids.leaf1!)).to.deep.include({ status: { value: 'planned', label: 'Planned' } });
    const result = JSON.parse(toolResults(sut.stub.requests.at(-1)).join(''));
    expect(result).to.deep.include({ status: 200, read_back: { as_planned: true } });

    const auditor = await sut.token('auditor', ['ai_ops.view_auditlog']);
    const listed = await sut.call('GET', `${AUDIT}?user=nora`, { key: auditor });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    const [entry] = listed.body.results;
    expect(entry).to.deep.include({ outcome: 'ok', http_status: 200 });
    expect(entry.plan.summary).to.equal('Update device leaf-1');
  });

  it('shows a DELETE as the display of the object it removes', async () => {
    propose({ method: 'DELETE', path: `${DEVICES}${ids.leaf4}/` });
    const { job, plan } = await paused();
    expect(plan).to.deep.include({ summary: 'Delete device leaf-4', count: 1 });
    expect(plan.objects.map(({ display, effect }) => [display, effect])).to.deep.equal([['leaf-4', 'delete']]);
    await decide(job);
    await completed(job);
    expect(objects.get(DEVICES, ids.leaf4!)).to.equal(undefined);
  });

  it('never puts a POST missing a required field to the user: the model sees the field by name, nothing is written', async () => {
    const writes = objects.writes.length;
    propose({ method: 'POST', path: DEVICES, body: { name: 'leaf-9', role: ids.role, device_type: ids.model } });
    const result = await answeredAtOnce();
    expect(result).to.contain('its plan has errors');
    expect(result).to.contain('- site: is required');
    expect(objects.writes).to.have.length(writes);
  });

  it('refuses a GET with a misspelled filter before it reaches the platform, naming the right filters', async () => {
    const requests = platform.requests.length;
    propose({ method: 'GET', path: DEVICES, params: { site_name: 'ams1' } });
    const result = await answeredAtOnce();
    expect(result).to.contain('`site_name` is not a filter of GET /api/dcim/devices/; did you mean `site` or `site_id`?');
    expect(platform.requests).to.have.length(requests);
  });

  it('writes nothing when the object changed between plan and approval: the call is planned and asked again, then made', async () => {
    propose({ method: 'PATCH', path: `${DEVICES}${ids.leaf2}/`, body: { status: 'staged' } });
    const { job } = await paused();
    const writes = objects.writes.length;
    objects.edit(DEVICES, ids.leaf2!, { status: 'offline' });
    await decide(job);
    const again = await waiting(job, (approval) => approval.replanned !== undefined);
    expect(again.approval.replanned!.join(' ')).to.match(/leaf-2 was changed since the plan/);
    expect(again.approval.replanned).to.include('leaf-2: status is now offline, it was active when planned');
    expect(changesOf(again.plan)).to.deep.equal([{ field: 'status', before: 'offline', after: 'staged' }]);
    expect(objects.writes).to.have.length(writes);

    await decide(job);
    await completed(job);
    expect(objects.get(DEVICES, ids.leaf2!)).to.deep.include({ status: { value: 'staged', label: 'Staged' } });
    expect(toolResults(sut.stub.requests.at(-1)).join('')).to.match(/^\(asked again because leaf-2 was changed since the plan/);
  });

  it('refuses a bulk delete over WRITE_MAX_OBJECTS before anyone is asked, with the count and how to narrow it', async () => {
    const body = objects.all(VLANS).map(({ id }) => ({ id }));
    propose({ method: 'DELETE', path: VLANS, body });
    const result = await answeredAtOnce();
    expect(result).to.contain('this would delete 8 VLANs at once, more than WRITE_MAX_OBJECTS (5): narrow the list');
    expect(objects.all(VLANS)).to.have.length(8);
  });

  it('answers a dry run with the plan, without asking or writing', async () => {
    const writes = objects.writes.length;
    propose({ method: 'PATCH', path: `${DEVICES}${ids.leaf3}/`, body: { status: 'failed' }, dry_run: true });
    const result = JSON.parse(await answeredAtOnce());
    expect(result).to.deep.include({ dry_run: true });
    expect(result.plan.summary).to.equal('Update device leaf-3');
    expect(objects.writes).to.have.length(writes);
    expect(objects.get(DEVICES, ids.leaf3!)).to.deep.include({ status: { value: 'active', label: 'Active' } });
  });
});
