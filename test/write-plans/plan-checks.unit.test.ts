import { expect } from 'chai';
import { valueErrors } from '../../src/write-plans/body-check.js';
import { displayOf } from '../../src/write-plans/operation-words.js';
import { sameValue, shown } from '../../src/write-plans/plan-values.js';
import { closestNames } from '../../src/write-plans/query-check.js';
import { fixture } from '../endpoint-search/support/stub-platform.js';

describe(valueErrors.name, () => {
  const nautobot = fixture<Record<string, unknown>>('nautobot-openapi.json');
  const face = { $ref: '#/components/schemas/Rack_face' };

  it('takes what Django REST takes: numbers as text, one of several alternatives, null where nullable', () => {
    expect(valueErrors({}, { type: 'integer', minimum: 1, maximum: 4094 }, '300', 'vid')).to.deep.equal([]);
    expect(valueErrors({}, { type: 'integer', minimum: 1, maximum: 4094 }, 5000, 'vid')).to.deep.equal([
      { field: 'vid', message: '5000 is above the maximum 4094' },
    ]);
    expect(valueErrors({}, { type: 'integer' }, 'three', 'vid')).to.deep.equal([{ field: 'vid', message: 'must be a whole number' }]);
    expect(valueErrors(nautobot, face, 'rear', 'face')).to.deep.equal([]);
    expect(valueErrors(nautobot, face, '', 'face')).to.deep.equal([]);
    expect(valueErrors({}, { type: 'string', nullable: true }, null, 'asset_tag')).to.deep.equal([]);
    expect(valueErrors({}, { type: 'string' }, null, 'serial')).to.deep.equal([{ field: 'serial', message: 'may not be null' }]);
  });

  it('names the choices of an enum reached through alternatives', () => {
    expect(valueErrors(nautobot, face, 'top', 'face')).to.deep.equal([
      { field: 'face', message: '"top" is not one of the choices', choices: ['front', 'rear'] },
    ]);
  });
});

describe(`${valueErrors.name}, on composed schemas`, () => {
  const root = {
    components: {
      schemas: {
        Http: {
          type: 'object',
          required: ['url'],
          properties: { kind: { type: 'string' }, url: { type: 'string', pattern: '^https?://' } },
        },
        Stdio: {
          type: 'object',
          additionalProperties: false,
          required: ['command'],
          properties: { kind: { type: 'string' }, command: { type: 'string', minLength: 1 } },
        },
      },
    },
  };
  const transport = {
    oneOf: [{ $ref: '#/components/schemas/Http' }, { $ref: '#/components/schemas/Stdio' }],
    discriminator: { propertyName: 'kind', mapping: { http: '#/components/schemas/Http', stdio: '#/components/schemas/Stdio' } },
  };

  it('reads the alternative a discriminator picks: its required keys, closed keys, lengths and patterns', () => {
    expect(valueErrors(root, transport, { kind: 'http', url: 'https://mcp.example' }, 'transport')).to.deep.equal([]);
    expect(valueErrors(root, transport, { kind: 'stdio', url: 'https://mcp.example' }, 'transport')).to.deep.equal([
      { field: 'transport.command', message: 'is required' },
      { field: 'transport.url', message: 'is not a key it takes' },
    ]);
    expect(valueErrors(root, transport, { kind: 'http', url: 'ftp://mcp.example' }, 'transport')).to.deep.equal([
      { field: 'transport.url', message: 'does not match the pattern ^https?://' },
    ]);
    expect(valueErrors(root, transport, { kind: 'stdio', command: '' }, 'transport')).to.deep.equal([
      { field: 'transport.command', message: 'may not be blank' },
    ]);
  });

  it('checks every allOf part, and a list’s length and items', () => {
    const roots = { type: 'array', maxItems: 1, items: { allOf: [{ $ref: '#/components/schemas/Http' }, { required: ['kind'] }] } };
    expect(valueErrors(root, roots, [{ url: 'http://a' }], 'roots')).to.deep.equal([{ field: 'roots[0].kind', message: 'is required' }]);
    expect(valueErrors(root, roots, [{}, {}], 'roots')).to.deep.equal([{ field: 'roots', message: 'has 2 items, at most 1 are allowed' }]);
  });
});

describe(displayOf.name, () => {
  it('names an object by its display, its name, its id, and says nothing of an object without any', () => {
    expect(displayOf({ id: 7, display: 'leaf-1' })).to.equal('leaf-1');
    expect(displayOf({ id: 7, name: 'leaf-1' })).to.equal('leaf-1');
    expect(displayOf({ id: 7 })).to.equal('#7');
    expect(displayOf({ job_id: 'a1', status: 'running' })).to.equal('');
  });
});

describe(closestNames.name, () => {
  it('suggests the declared names nearest a misspelled one, lookups only for a lookup', () => {
    const declared = ['q', 'name', 'name__ic', 'site', 'site_id', 'site_group', 'status', 'tag'];
    expect(closestNames('site_name', declared)).to.deep.equal(['site', 'site_id']);
    expect(closestNames('stauts', declared)).to.deep.equal(['status']);
    expect(closestNames('name__icontains', declared)).to.deep.equal(['name__ic']);
    expect(closestNames('serial_number', declared)).to.deep.equal([]);
  });
});

describe(sameValue.name, () => {
  it('compares as the platform does: related objects by id, choices by value, related objects in any order, other lists in order', () => {
    expect(sameValue({ id: 5, display: 'AMS1' }, 5)).to.equal(true);
    expect(sameValue({ value: 'active', label: 'Active' }, 'active')).to.equal(true);
    expect(sameValue([{ id: 1 }, { id: 2 }], ['2', '1'])).to.equal(true);
    expect(sameValue([2, 1], [{ id: 1 }, { id: 2 }])).to.equal(true);
    // A reordered list of values is a change the plan shows: which NTP server is asked first.
    expect(sameValue(['10.0.0.1', '10.0.0.2'], ['10.0.0.2', '10.0.0.1'])).to.equal(false);
    expect(sameValue([{ server: 'a' }, { server: 'b' }], [{ server: 'b' }, { server: 'a' }])).to.equal(false);
    expect(sameValue(['a', 'b'], ['a', 'b'])).to.equal(true);
    expect(sameValue(null, '')).to.equal(true);
    expect(sameValue({ a: 1 }, { a: 2 })).to.equal(false);
    expect(shown({ id: 5, display: 'AMS1' })).to.equal('AMS1');
    expect(shown('x'.repeat(300))).to.have.length(200);
  });
});
