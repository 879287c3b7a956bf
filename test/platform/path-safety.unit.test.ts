import { expect } from 'chai';
import { ValidationError } from '../../src/kernel/errors.js';
import { assertSafeApiPath, platformUrl } from '../../src/platform/path-safety.js';

describe('assertSafeApiPath', () => {
  it('accepts relative API paths', () => {
    for (const path of [
      '/api/dcim/devices/',
      '/api/dcim/devices/5f1c2d3e-0000-4000-8000-000000000001/',
      '/status',
      '/api/ipam/prefixes/12/available-ips/',
      '/api/extras/jobs/local%2Fmy_job/run/',
    ]) {
      expect(assertSafeApiPath(path)).to.equal(path);
    }
  });

  const refused = [
    'api/dcim/devices/',
    'http://evil.example/api/',
    '//evil.example/api/',
    '/https://evil.example/',
    '/api/../admin/',
    '/api/%2e%2e/admin/',
    '/api/%252e%252e/admin/',
    '/api/./devices/',
    '/api\\..\\admin',
    '/api/dcim/%5c..%5cadmin',
    '/api/dcim/devices/\r\nHost: evil',
    '/api/dcim/%0d%0aX-Injected: 1',
    '/api/dcim/devices/?limit=1',
    '/api/dcim/devices/#frag',
    '/@evil.example/',
    '/api/%zz/',
    '/%2f%2fevil.example/',
  ];
  for (const path of refused) {
    it(`refuses ${JSON.stringify(path)}`, () => {
      expect(() => assertSafeApiPath(path)).to.throw(ValidationError);
    });
  }

  it('keeps requests on the configured origin and prefix, with params encoded', () => {
    const url = platformUrl('https://nautobot.example.net/base/', '/api/dcim/devices/', {
      name: ['a b', 'c&d'],
      limit: 5,
      skip: undefined,
    });
    expect(url.origin).to.equal('https://nautobot.example.net');
    expect(url.pathname).to.equal('/base/api/dcim/devices/');
    expect(url.searchParams.getAll('name')).to.deep.equal(['a b', 'c&d']);
    expect(url.searchParams.get('limit')).to.equal('5');
    expect(url.searchParams.has('skip')).to.equal(false);
  });
});
