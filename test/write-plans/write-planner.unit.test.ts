import { expect } from 'chai';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { parseDescription } from '../../src/endpoint-search/endpoint-document.js';
import { OperationDescriber } from '../../src/endpoint-search/operation-schema.js';
import { ValidationError } from '../../src/kernel/errors.js';
import type { ApiRequest, PlatformClient } from '../../src/platform/platform.port.js';
import { planDrift, planRefusal } from '../../src/write-plans/write-plan.js';
import { WritePlanner } from '../../src/write-plans/write-planner.js';
import { fixture } from '../endpoint-search/support/stub-platform.js';
import { PlatformObjects } from '../support/platform-objects.js';

const NETBOX_REFERENCES = {
  site: '/api/dcim/sites/',
  role: '/api/dcim/device-roles/',
  device_type: '/api/dcim/device-types/',
};

/** A client over `objects` that counts the requests it makes. */
function countingClient(objects: PlatformObjects): PlatformClient & { requests: ApiRequest[] } {
  const inner = objects.client();
  const requests: ApiRequest[] = [];
  return { ...inner, requests, request: (request) => (requests.push(request), inner.request(request)) };
}

describe(WritePlanner.name, () => {
  describe('on NetBox 4.2.2', () => {
    const netbox = new OperationDescriber(parseDescription(fixture('netbox-openapi.json')));
    let objects: PlatformObjects;
    let client: ReturnType<typeof countingClient>;
    let sut: WritePlanner;
    const ids: Record<string, number> = {};

    beforeEach(() => {
      objects = new PlatformObjects({ ids: 'integer', references: NETBOX_REFERENCES });
      const [ams1, ams2] = objects.seed('/api/dcim/sites/', [
        { name: 'AMS1', slug: 'ams1' },
        { name: 'AMS2', slug: 'ams2' },
      ]);
      const [leafRole] = objects.seed('/api/dcim/device-roles/', [{ name: 'Leaf', slug: 'leaf' }]);
      const [model] = objects.seed('/api/dcim/device-types/', [{ model: 'DCS-7050', slug: 'dcs-7050' }]);
      const [leaf1, leaf2] = objects.seed('/api/dcim/devices/', [
        { name: 'leaf-1', site: ams1!.id, role: leafRole!.id, device_type: model!.id, status: 'active' },
        { name: 'leaf-2', site: ams1!.id, role: leafRole!.id, device_type: model!.id, status: 'active' },
      ]);
      const vlans = objects.seed(
        '/api/ipam/vlans/',
        Array.from({ length: 30 }, (_, index) => ({ vid: 100 + index, name: `vlan-${100 + index}`, status: 'active' })),
      );
      Object.assign(ids, { ams1: ams1!.id, ams2: ams2!.id, role: leafRole!.id, model: model!.id, leaf1: leaf1!.id, leaf2: leaf2!.id });
      ids.vlan = vlans[0]!.id as number;
      client = countingClient(objects);
      sut = new WritePlanner({ operations: async () => netbox, maxObjects: 25 });
    });

    const plan = (request: ApiRequest) => sut.plan(request, client);

    it('shows a PATCH as each changed field before → after, related objects by their display', async () => {
      const result = await plan({ method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { status: 'planned', site: ids.ams2 } });
      expect(result.errors).to.deep.equal([]);
      expect(result.summary).to.equal('Update device leaf-1');
      expect(result.operation).to.equal('PATCH /api/dcim/devices/{id}/');
      expect(result.count).to.equal(1);
      const [object] = result.objects;
      expect(object).to.include({
        id: String(ids.leaf1),
        display: 'leaf-1',
        effect: 'update',
        last_updated: objects.get('/api/dcim/devices/', ids.leaf1!)!.last_updated,
      });
      expect(object!.changes.map(({ field, before, after }) => ({ field, before, after }))).to.deep.equal([
        { field: 'status', before: 'active', after: 'planned' },
        { field: 'site', before: 'AMS1', after: 'AMS2' },
      ]);
      expect(objects.writes).to.deep.equal([]);
    });

    it('never shows a credential, whatever its name is spelt like, at any depth of the body', async () => {
      const credentials = {
        accessToken: 'at-0001',
        clientSecret: 'cs-0002',
        secret_key: 'sk-0003',
        aws_secret_access_key: 'aw-0004',
        ssh_key: 'ss-0005',
        Cookie: 'co-0006',
      };
      const result = await plan({
        method: 'PATCH',
        path: `/api/dcim/devices/${ids.leaf1}/`,
        body: { local_context_data: { vendor: { ...credentials, max_tokens: 5 } } },
      });
      expect(result.errors).to.deep.equal([]);
      const shown = JSON.stringify(result);
      for (const value of Object.values(credentials)) expect(shown).to.not.contain(value);
      expect(shown).to.contain('max_tokens');
    });

    it('says so when a change changes nothing', async () => {
      const result = await plan({ method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { status: 'active', site: ids.ams1 } });
      expect(result.summary).to.equal('Update device leaf-1 (changes nothing)');
      expect(result.objects[0]!.effect).to.equal('unchanged');
      expect(result.notes.join(' ')).to.match(/changes nothing/);
    });

    it('refuses a value outside the choices, naming the field and the choices', async () => {
      const result = await plan({ method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { status: 'up' } });
      expect(result.errors).to.have.length(1);
      expect(result.errors[0]).to.include({ field: 'status' });
      expect(result.errors[0]!.choices).to.include.members(['active', 'planned', 'offline']);
      expect(planRefusal(result)).to.match(/status: "up" is not one of the choices \(choices: offline, active, planned/);
    });

    it('names the closest field for an unknown one, and checks types', async () => {
      const result = await plan({ method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { stauts: 'active', position: 'top' } });
      expect(result.errors.map((error) => `${error.field}: ${error.message}`)).to.deep.equal([
        'stauts: is not a field of PATCH /api/dcim/devices/{id}/; did you mean status?',
        'position: must be a number',
      ]);
    });

    it('shows a DELETE as the object it removes, by its display', async () => {
      const result = await plan({ method: 'DELETE', path: `/api/dcim/devices/${ids.leaf2}/` });
      expect(result).to.deep.include({ summary: 'Delete device leaf-2', count: 1, errors: [] });
      expect(result.objects).to.have.length(1);
      expect(result.objects[0]).to.include({ display: 'leaf-2', effect: 'delete' });
    });

    it('refuses a write to an object that does not exist', async () => {
      const result = await plan({ method: 'DELETE', path: '/api/dcim/devices/999/' });
      expect(result.errors).to.deep.equal([{ message: 'no device at /api/dcim/devices/999/' }]);
    });

    it('checks a POST against the request schema: a required field missing is named', async () => {
      const result = await plan({
        method: 'POST',
        path: '/api/dcim/devices/',
        body: { name: 'leaf-9', role: ids.role, device_type: ids.model },
      });
      expect(result.errors).to.deep.equal([{ field: 'site', message: 'is required' }]);
      expect(result.summary).to.equal('Create device leaf-9');
    });

    it('shows a POST as the object it creates, with related objects resolved by id or by their fields', async () => {
      const result = await plan({
        method: 'POST',
        path: '/api/dcim/devices/',
        body: { name: 'leaf-9', role: ids.role, device_type: { slug: 'dcs-7050' }, site: ids.ams2, status: 'planned' },
      });
      expect(result.errors).to.deep.equal([]);
      expect(result.objects[0]!.changes.map(({ field, before, after }) => ({ field, before, after }))).to.deep.equal([
        { field: 'name', before: undefined, after: 'leaf-9' },
        { field: 'role', before: undefined, after: 'Leaf' },
        { field: 'device_type', before: undefined, after: 'DCS-7050' },
        { field: 'site', before: undefined, after: 'AMS2' },
        { field: 'status', before: undefined, after: 'planned' },
      ]);
      const prefix = await plan({ method: 'POST', path: '/api/ipam/prefixes/', body: { prefix: '10.0.8.0/24', status: 'active' } });
      expect(prefix).to.deep.include({ summary: 'Create prefix 10.0.8.0/24', errors: [] });
    });

    it('refuses a related object that does not exist, and one given by name instead of id', async () => {
      const missing = await plan({ method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { site: 999 } });
      expect(missing.errors).to.deep.equal([{ field: 'site', message: 'no site with id 999' }]);
      const byName = await plan({ method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { site: 'ams2' } });
      expect(byName.errors).to.deep.equal([{ field: 'site', message: `give the site's id, not its name: ${ids.ams2} is AMS2` }]);
    });

    it('counts a bulk delete and shows each object', async () => {
      const vlans = objects.all('/api/ipam/vlans/').slice(0, 3);
      const result = await plan({ method: 'DELETE', path: '/api/ipam/vlans/', body: vlans.map(({ id }) => ({ id })) });
      expect(result).to.deep.include({ summary: 'Delete 3 VLANs', count: 3, errors: [] });
      expect(result.objects.map(({ display, effect }) => `${display} ${effect}`)).to.deep.equal([
        'vlan-100 delete',
        'vlan-101 delete',
        'vlan-102 delete',
      ]);
    });

    it('refuses a bulk delete over WRITE_MAX_OBJECTS before reading anything, with the count and how to narrow it', async () => {
      const body = objects.all('/api/ipam/vlans/').map(({ id }) => ({ id }));
      const result = await plan({ method: 'DELETE', path: '/api/ipam/vlans/', body });
      expect(result.count).to.equal(30);
      expect(result.errors).to.have.length(1);
      expect(result.errors[0]!.message).to.match(
        /delete 30 VLANs at once, more than WRITE_MAX_OBJECTS \(25\): narrow the list .* at most 25/,
      );
      expect(client.requests).to.deep.equal([]);
    });

    it('refuses undeclared query parameters, naming the closest declared ones; paging and shaping pass', async () => {
      const check = sut.checkParameters({ method: 'GET', path: '/api/dcim/devices/', params: { site_name: 'ams1', limit: 5 } });
      const error = await check.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).fields).to.deep.equal({
        'params.site_name': ['`site_name` is not a filter of GET /api/dcim/devices/; did you mean `site` or `site_id`?'],
      });
      await sut.checkParameters({
        method: 'GET',
        path: '/api/dcim/devices/',
        params: { site: 'ams1', limit: 5, brief: true, fields: 'name' },
      });
      const write = await plan({
        method: 'PATCH',
        path: `/api/dcim/devices/${ids.leaf1}/`,
        params: { dry: 1 },
        body: { status: 'planned' },
      });
      expect(write.errors[0]).to.deep.include({ field: 'params.dry' });
    });

    it('tells what moved since a plan: last_updated and a planned field', async () => {
      const request: ApiRequest = { method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { status: 'planned' } };
      const approved = await plan(request);
      expect(planDrift(approved, await plan(request))).to.deep.equal([]);
      objects.edit('/api/dcim/devices/', ids.leaf1!, { status: 'offline' });
      const reasons = planDrift(approved, await plan(request));
      expect(reasons).to.have.length(2);
      expect(reasons[0]).to.match(/^leaf-1 was changed since the plan \(last updated .*, now .*\)$/);
      expect(reasons[1]).to.equal('leaf-1: status is now offline, it was active when planned');
    });

    it('reads a write back and names the fields that did not end up as planned', async () => {
      const request: ApiRequest = { method: 'PATCH', path: `/api/dcim/devices/${ids.leaf1}/`, body: { status: 'planned', site: ids.ams2 } };
      const approved = await plan(request);
      const written = objects.handle(request);
      expect(await sut.readBack(approved, written.data, client)).to.deep.equal([]);
      objects.edit('/api/dcim/devices/', ids.leaf1!, { status: 'staged' });
      expect(await sut.readBack(approved, written.data, client)).to.deep.equal(['leaf-1: status is staged, planned planned']);
      const create: ApiRequest = { method: 'POST', path: '/api/ipam/prefixes/', body: { prefix: '10.0.9.0/24', status: 'active' } };
      const created = await plan(create);
      objects.seed('/api/ipam/prefixes/', []);
      expect(await sut.readBack(created, objects.handle(create).data, client)).to.deep.equal([]);
      const remove: ApiRequest = { method: 'DELETE', path: `/api/dcim/devices/${ids.leaf2}/` };
      const removal = await plan(remove);
      expect(await sut.readBack(removal, null, client)).to.deep.equal(['leaf-2 still exists after the delete']);
    });
  });

  describe('on this service’s own API', () => {
    const service = new OperationDescriber(parseDescription(loadOpenApiDocument()));
    const MODELS = '/api/plugins/ai-ops/llm-models/';
    const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
    let objects: PlatformObjects;
    let sut: WritePlanner;

    beforeEach(() => {
      objects = new PlatformObjects({ ids: 'uuid' });
      objects.seed(
        '/api/extras/statuses/',
        ['Healthy', 'Unhealthy', 'Unknown', 'Maintenance'].map((name) => ({ name })),
      );
      objects.seed(MODELS, []);
      objects.seed(SERVERS, []);
      sut = new WritePlanner({ operations: async () => service, maxObjects: 25 });
    });

    it('names a required field a create leaves out, in one object or a list of them', async () => {
      const one = await sut.plan({ method: 'POST', path: MODELS, body: { provider: 'openai' } }, objects.client());
      expect(one.errors).to.deep.equal([{ field: 'name', message: 'is required' }]);
      const many = await sut.plan({ method: 'POST', path: MODELS, body: [{ name: 'a' }, { provider: 'openai' }] }, objects.client());
      expect(many.errors).to.deep.equal([{ field: '[1].name', message: 'is required' }]);
    });

    it('resolves a status by name in any case, and refuses one no status has, with the choices', async () => {
      const broken = await sut.plan(
        { method: 'POST', path: SERVERS, body: { name: 'mcp', url: 'http://127.0.0.1:9/', status: 'Broken' } },
        objects.client(),
      );
      expect(broken.errors).to.deep.equal([
        { field: 'status', message: 'no status is called "Broken"', choices: ['Healthy', 'Unhealthy', 'Unknown', 'Maintenance'] },
      ]);
      const named = await sut.plan(
        { method: 'POST', path: SERVERS, body: { name: 'mcp', url: 'http://127.0.0.1:9/', status: 'maintenance' } },
        objects.client(),
      );
      expect(named.errors).to.deep.equal([]);
      expect(named.objects[0]!.changes.find(({ field }) => field === 'status')).to.include({ after: 'Maintenance' });
    });
  });

  describe('on Nautobot 1.3.7', () => {
    const nautobot = new OperationDescriber(parseDescription(fixture('nautobot-openapi.json')));

    it('plans a PATCH by UUID and names a required field a POST misses', async () => {
      const objects = new PlatformObjects({ ids: 'uuid', references: { site: '/api/dcim/sites/' } });
      const [site] = objects.seed('/api/dcim/sites/', [{ name: 'ams1', slug: 'ams1' }]);
      const [vlan] = objects.seed('/api/ipam/vlans/', [{ vid: 300, name: 'guest', status: 'active', site: site!.id }]);
      const sut = new WritePlanner({ operations: async () => nautobot, maxObjects: 25 });
      const patch = await sut.plan(
        { method: 'PATCH', path: `/api/ipam/vlans/${String(vlan!.id)}/`, body: { status: 'reserved' } },
        objects.client(),
      );
      expect(patch).to.deep.include({ summary: 'Update VLAN guest', errors: [] });
      expect(patch.objects[0]!.changes.map(({ field, before, after }) => [field, before, after])).to.deep.equal([
        ['status', 'active', 'reserved'],
      ]);
      const post = await sut.plan({ method: 'POST', path: '/api/ipam/vlans/', body: { vid: 301, name: 'voice' } }, objects.client());
      expect(post.errors).to.deep.equal([{ field: 'status', message: 'is required' }]);
    });
  });
});
