import { expect } from 'chai';
import { ValidationError } from '../../src/kernel/errors.js';
import { endpointHash, parseDescription } from '../../src/endpoint-search/endpoint-document.js';
import { fixture } from './support/stub-platform.js';

describe('parseDescription', () => {
  it('reads Nautobot 1.3.7 (OpenAPI 3, server prefix /api, paths without it)', () => {
    const parsed = parseDescription(fixture('nautobot-openapi.json'));
    expect(parsed.prefix).to.equal('/api');
    expect(parsed.endpoints).to.have.length(754);
    const create = parsed.endpoints.find((e) => e.key === 'POST /api/dcim/devices/')!;
    expect(create.specPath).to.equal('/dcim/devices/');
    expect(create.operationId).to.equal('dcim_devices_create');
    expect(create.bodyFields).to.include.members(['name', 'device_type', 'serial']);
    const list = parsed.endpoints.find((e) => e.key === 'GET /api/dcim/devices/')!;
    expect(list.parameters).to.include.members(['limit', 'offset', 'name']);
    // Read-only fields Nautobot 1.x lists as required (id, url, display) are not asked of a write.
    expect(create.requiredFields).to.have.members(['device_role', 'device_type', 'site', 'status']);
    expect(list.filters.slice(0, 2)).to.deep.equal(['q', 'name']);
    expect(list.filters).to.include('site');
    expect(parsed.endpoints.find((e) => e.key === 'DELETE /api/dcim/devices/')!.requiredFields).to.deep.equal(['id']);
  });

  it('reads NetBox 4.2.2 (OpenAPI 3, paths already carry /api)', () => {
    const parsed = parseDescription(fixture('netbox-openapi.json'));
    expect(parsed.prefix).to.equal('');
    expect(parsed.endpoints).to.have.length(1124);
    expect(parsed.endpoints.some((e) => e.key === 'GET /api/dcim/devices/')).to.equal(true);
    expect(parsed.endpoints.some((e) => e.path.startsWith('/api/api/'))).to.equal(false);
  });

  it('reads Swagger 2 with a basePath, path-level parameters, $ref parameters and body schemas', () => {
    const parsed = parseDescription({
      swagger: '2.0',
      info: { title: 'legacy', version: '1' },
      basePath: '/api/',
      paths: {
        '/dcim/sites/{id}/': {
          parameters: [{ $ref: '#/parameters/id' }],
          summary: 'path-level text is not an operation',
          patch: {
            operationId: 'dcim_sites_partial_update',
            parameters: [{ name: 'data', in: 'body', schema: { $ref: '#/definitions/WritableSite' } }],
          },
        },
      },
      parameters: { id: { name: 'id', in: 'path', required: true, type: 'integer' } },
      definitions: { WritableSite: { allOf: [{ properties: { name: {}, slug: {} } }, { properties: { facility: {} } }] } },
    });
    expect(parsed.endpoints).to.have.length(1);
    const [site] = parsed.endpoints;
    expect(site!.path).to.equal('/api/dcim/sites/{id}/');
    expect(site!.parameters).to.deep.equal(['id']);
    expect(site!.bodyFields).to.deep.equal(['name', 'slug', 'facility']);
  });

  it('takes the path of an absolute server URL', () => {
    const parsed = parseDescription({
      openapi: '3.0.0',
      servers: [{ url: 'https://nb.example.net/api/' }],
      paths: { '/status/': { get: {} } },
    });
    expect(parsed.endpoints[0]!.path).to.equal('/api/status/');
  });

  it('refuses what is not an OpenAPI or Swagger document', () => {
    expect(() => parseDescription({ hello: 'world' })).to.throw(ValidationError);
  });

  it('hashes an endpoint by its content', () => {
    const [a] = parseDescription({ openapi: '3.0.0', paths: { '/x/': { get: { summary: 'one' } } } }).endpoints;
    const [b] = parseDescription({ openapi: '3.0.0', paths: { '/x/': { get: { summary: 'two' } } } }).endpoints;
    expect(endpointHash(a!)).to.not.equal(endpointHash(b!));
    expect(endpointHash(a!)).to.equal(endpointHash({ ...a! }));
  });
});
