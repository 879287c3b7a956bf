import { expect } from 'chai';
import { valueErrors } from '../../src/write-plans/body-check.js';
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
  it('compares as the platform does: related objects by id, choices by value, lists in any order', () => {
    expect(sameValue({ id: 5, display: 'AMS1' }, 5)).to.equal(true);
    expect(sameValue({ value: 'active', label: 'Active' }, 'active')).to.equal(true);
    expect(sameValue([{ id: 1 }, { id: 2 }], ['2', '1'])).to.equal(true);
    expect(sameValue(null, '')).to.equal(true);
    expect(sameValue({ a: 1 }, { a: 2 })).to.equal(false);
    expect(shown({ id: 5, display: 'AMS1' })).to.equal('AMS1');
    expect(shown('x'.repeat(300))).to.have.length(200);
  });
});
