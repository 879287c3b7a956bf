import { expect } from 'chai';
import { parseDescription } from '../../src/endpoint-search/endpoint-document.js';
import { UnknownOperationError } from '../../src/endpoint-search/operation-lookup.js';
import { OperationDescriber, type OperationSchema } from '../../src/endpoint-search/operation-schema.js';
import { fixture } from './support/stub-platform.js';

const field = (schema: OperationSchema, name: string) => schema.request_body?.fields.find((entry) => entry.name === name);
const size = (schema: OperationSchema) => JSON.stringify(schema).length;

describe(OperationDescriber.name, () => {
  const nautobot = new OperationDescriber(parseDescription(fixture('nautobot-openapi.json')));
  const netbox = new OperationDescriber(parseDescription(fixture('netbox-openapi.json')));

  it('describes a Nautobot 1.3 create: required fields without read-only ones, related ids, enums', () => {
    const sut = nautobot.describe('POST', '/api/dcim/devices/');
    expect(sut.request_body!.required).to.have.members(['device_role', 'device_type', 'site', 'status']);
    expect(field(sut, 'device_type')).to.deep.include({ type: 'string(uuid)', required: true, related: '/api/dcim/device-types/' });
    expect(field(sut, 'status')!.enum).to.include.members(['active', 'planned']);
    expect(field(sut, 'face')!.enum).to.deep.equal(['front', 'rear']);
    expect(field(sut, 'id'), 'read-only').to.equal(undefined);
    expect(sut.request_body!.list).to.equal('accepted');
    expect(sut.summary).to.match(/create a device/);
  });

  it('describes a NetBox 4.2 create: nested references name their collection', () => {
    const sut = netbox.describe('POST', '/api/ipam/vlans/');
    expect(sut.request_body!.required).to.deep.equal(['name', 'vid']);
    expect(field(sut, 'vid')).to.deep.include({ type: 'integer 1..4094', required: true });
    expect(field(sut, 'group')).to.deep.include({ type: 'id or object', related: '/api/ipam/vlan-groups/' });
    expect(field(sut, 'site')!.related).to.equal('/api/dcim/sites/');
    expect(field(sut, 'tags')).to.deep.include({ related: '/api/extras/tags/' });
    expect(field(sut, 'status')!.enum).to.deep.equal(['active', 'reserved', 'deprecated']);
    expect(field(sut, 'status')!.description).to.equal('Operational status of this VLAN');
  });

  it('folds lookup variants of list filters, main filters first, under the budget', () => {
    const sut = netbox.describe('GET', '/api/dcim/devices/');
    expect(sut.query_parameters.slice(0, 5).map(({ name }) => name)).to.deep.equal(['q', 'name', 'device_type', 'role', 'site']);
    expect(sut.query_parameters.some(({ name }) => name.includes('__'))).to.equal(false);
    expect(sut.filter_lookups).to.deep.include({ __ic: 'contains, case-insensitive', __n: 'not equal' });
    expect(sut.query_parameters.map(({ name }) => name)).to.include.members(['limit', 'offset']);
    expect(size(sut)).to.be.at.most(5_000);
  });

  it('shortens step by step to fit a small budget and says what it left out', () => {
    const sut = netbox.describe('GET', '/api/dcim/devices/', { budgetChars: 1_500 });
    expect(size(sut)).to.be.at.most(1_500);
    expect(sut.omitted).to.include('parameter descriptions');
    expect(sut.query_parameters.map(({ name }) => name)).to.include.members(['q', 'name', 'site', 'limit', 'offset']);
    expect(sut.more_query_parameters).to.not.be.empty;
  });

  it("finds an operation by filled-in id, by the description's own path key, and without the trailing slash", () => {
    expect(netbox.describe('delete', '/api/dcim/devices/17/').path).to.equal('/api/dcim/devices/{id}/');
    expect(nautobot.describe('GET', '/dcim/devices/{id}/').path).to.equal('/api/dcim/devices/{id}/');
    expect(nautobot.describe('GET', '/api/ipam/prefixes/2a7f1c3e-0000-4000-8000-000000000001/available-ips').path).to.equal(
      '/api/ipam/prefixes/{id}/available-ips/',
    );
  });

  it('asks bulk changes for a list of objects with their ids', () => {
    const sut = netbox.describe('PATCH', '/api/dcim/devices/');
    expect(sut.request_body).to.deep.include({ required: ['id'], list: 'required' });
  });

  it('answers an unknown operation with the closest ones', () => {
    const attempt = () => netbox.describe('GET', '/api/dcim/device/');
    expect(attempt).to.throw(UnknownOperationError);
    try {
      attempt();
    } catch (error) {
      const closest = (error as UnknownOperationError).closest.map(({ method, path }) => `${method} ${path}`);
      expect(closest[0]).to.equal('GET /api/dcim/devices/');
    }
    const wrongMethod = () => nautobot.describe('POST', '/api/status/');
    expect(wrongMethod).to.throw(UnknownOperationError, /closest: GET \/api\/status\//);
  });

  it('reads Swagger 2: body and form parameters, path-level parameters, definitions', () => {
    const sut = new OperationDescriber(
      parseDescription({
        swagger: '2.0',
        basePath: '/api',
        paths: {
          '/dcim/sites/': {
            post: { parameters: [{ name: 'data', in: 'body', required: true, schema: { $ref: '#/definitions/WritableSite' } }] },
            get: {
              parameters: [
                { name: 'name', in: 'query', type: 'string' },
                { name: 'name__ic', in: 'query', type: 'string' },
                { name: 'limit', in: 'query', type: 'integer' },
              ],
            },
          },
          '/dcim/sites/{id}/': {
            parameters: [{ $ref: '#/parameters/id' }],
            put: { parameters: [{ name: 'data', in: 'body', schema: { $ref: '#/definitions/WritableSite' } }] },
          },
          '/extras/upload/': {
            post: {
              consumes: ['multipart/form-data'],
              parameters: [
                { name: 'file', in: 'formData', type: 'file', required: true },
                { name: 'note', in: 'formData', type: 'string' },
              ],
            },
          },
          '/dcim/regions/': { get: {} },
        },
        parameters: {
          id: { name: 'id', in: 'path', required: true, type: 'integer', description: 'A unique integer value identifying this site.' },
        },
        definitions: {
          WritableSite: {
            required: ['name', 'slug', 'id'],
            properties: {
              id: { type: 'integer', readOnly: true },
              name: { type: 'string', maxLength: 50 },
              slug: { type: 'string' },
              status: { type: 'string', enum: ['active', 'planned'] },
              region: { type: 'integer', title: 'Region', 'x-nullable': true },
            },
          },
        },
      }),
    );
    const create = sut.describe('POST', '/api/dcim/sites/');
    expect(create.request_body!.required).to.deep.equal(['name', 'slug']);
    expect(field(create, 'region')).to.deep.include({ type: 'integer', nullable: true, related: '/api/dcim/regions/' });
    expect(field(create, 'status')!.enum).to.deep.equal(['active', 'planned']);
    const replace = sut.describe('PUT', '/api/dcim/sites/5/');
    expect(replace.path_parameters).to.deep.equal([
      { name: 'id', type: 'integer', required: true, description: 'A unique integer value identifying this site.' },
    ]);
    expect(sut.describe('GET', '/api/dcim/sites/')).to.deep.include({ filter_lookups: { __ic: 'contains, case-insensitive' } });
    expect(sut.describe('POST', '/api/extras/upload/').request_body!.required).to.deep.equal(['file']);
  });

  it('never loops on circular references', () => {
    const sut = new OperationDescriber(
      parseDescription({
        openapi: '3.0.0',
        paths: {
          '/nodes/': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } },
        },
        components: {
          schemas: {
            Node: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, child: { $ref: '#/components/schemas/Node' } },
            },
          },
        },
      }),
    );
    const create = sut.describe('POST', '/nodes/');
    expect(create.request_body!.required).to.deep.equal(['name']);
    expect(field(create, 'child')!.fields).to.deep.equal(['name', 'child']);
  });
});
