import { expect } from 'chai';
import type { LookupAddress } from 'node:dns';
import { OutboundPolicy, OutboundRefusedError } from '../../src/kernel/http/outbound-policy.js';

const lookup = (policy: OutboundPolicy, host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    policy.lookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses as LookupAddress[]))),
  );

describe(OutboundPolicy.name, () => {
  const none = OutboundPolicy.fromList([]);

  it('calls every special range internal, and public unicast addresses public', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::',
      '::7f00:1',
      '::127.0.0.1',
      '::a00:1',
      '::808:808',
    ]) {
      expect(OutboundPolicy.internalRange(address), address).to.not.equal(null);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888'])
      expect(OutboundPolicy.internalRange(address), address).to.equal(null);
  });

  it('checks address literals however the URL writes them', () => {
    for (const url of [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://[::ffff:7f00:1]/',
      'http://[::1]:6379/',
      'http://169.254.169.254/',
    ]) {
      expect(() => none.checkLiteral(new URL(url)), url).to.throw(OutboundRefusedError);
    }
    expect(() => none.checkLiteral(new URL('http://8.8.8.8/'))).to.not.throw();
    // Names are for the lookup to decide.
    expect(() => none.checkLiteral(new URL('http://localhost/'))).to.not.throw();
  });

  it('allows what OUTBOUND_ALLOW lists: CIDRs, addresses and host names', () => {
    const policy = OutboundPolicy.fromList(['10.0.0.0/8', '192.168.1.5', 'ollama.internal', '::1']);
    expect(policy.allows('x', '10.9.8.7')).to.equal(true);
    expect(policy.allows('x', '192.168.1.5')).to.equal(true);
    expect(policy.allows('x', '192.168.1.6')).to.equal(false);
    expect(policy.allows('OLLAMA.internal.', '172.17.0.2')).to.equal(true);
    expect(policy.allows('x', '::1')).to.equal(true);
    expect(policy.allows('x', '::ffff:10.1.1.1')).to.equal(true);
    expect(() => OutboundPolicy.fromList(['not a host!'])).to.throw(/'not a host!'/);
    expect(OutboundPolicy.isEntry('2001:db8::/32')).to.equal(true);
  });

  it('refuses a name while it resolves, so the connection never reaches an internal address', async () => {
    const error = await lookup(none, 'localhost').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).to.be.instanceOf(OutboundRefusedError);
    expect(error!.message).to.equal(
      'localhost is an internal address (loopback, private, link-local or metadata range): only a superuser may set it, or OUTBOUND_ALLOW must list it',
    );
    const allowed = await lookup(OutboundPolicy.fromList(['127.0.0.0/8', '::1']), 'localhost');
    expect(allowed.length).to.be.greaterThan(0);
  });

  it('says on write whether a URL points inside', async () => {
    expect(await none.refusesUrl('http://localhost:8080/')).to.equal(true);
    expect(await none.refusesUrl('http://[::1]/')).to.equal(true);
    expect(await OutboundPolicy.fromList(['localhost']).refusesUrl('http://localhost:8080/')).to.equal(false);
  });
});
