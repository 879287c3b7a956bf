import { expect } from 'chai';
import { QueryAnalyser } from '../../src/endpoint-search/query-analysis.js';

/** Resource nouns of a small API, for the noun-or-verb decisions. */
const NOUNS = new Set([
  'device',
  'vlan',
  'bookmark',
  'tag',
  'interface',
  'prefix',
  'site',
  'objectchange',
  'change',
  'object',
  'rack',
  'elevation',
]);

describe('intent', () => {
  const sut = new QueryAnalyser();
  const intentOf = (query: string) =>
    sut.analyse(query, { knows: (term) => NOUNS.has(term), isResource: (term) => NOUNS.has(term) }).intent;
  const method = (query: string) => Object.entries(intentOf(query).methods).sort((a, b) => b[1] - a[1])[0]![0];

  it('reads the method from the opening verb', () => {
    expect(method('Add a VLAN')).to.equal('POST');
    expect(method('Onboard the new leaf')).to.equal('POST');
    expect(method('Bump the firmware on a box')).to.equal('PATCH');
    expect(method('Replace the whole site record')).to.equal('PUT');
    expect(method('Decommission the old firewall')).to.equal('DELETE');
    expect(method('Please could you remove the VLAN')).to.equal('DELETE');
    expect(method('I need to add a prefix')).to.equal('POST');
  });

  it('reads questions and noun phrases as reads, unless a modal asks for an action', () => {
    expect(method('Which prefixes are free')).to.equal('GET');
    expect(method("Did last night's compliance run fail?")).to.equal('GET');
    expect(method('devices in ams1')).to.equal('GET');
    expect(method('object changes')).to.equal('GET');
    expect(method('rack elevation')).to.equal('GET');
    expect(method('Which VLAN should I delete')).to.equal('DELETE');
  });

  it('takes the verb an agent puts last', () => {
    expect(method('wireless lan create')).to.equal('POST');
    expect(method('vlan groups list')).to.equal('GET');
    expect(method('tunnel termination delete')).to.equal('DELETE');
  });

  it('reads a noun as a verb only where an object follows', () => {
    expect(method('Bookmark core-rtr-1 so I find it quickly')).to.equal('POST');
    expect(method('Tag the device as pci-scope')).to.equal('PATCH');
    expect(method('tag list')).to.equal('GET');
  });

  it('gives a verb nobody listed a soft prior from the rest of the request', () => {
    expect(intentOf('Frobnicate the interfaces').methods.GET).to.be.below(1);
    expect(method('Frobnicate a new VLAN for the guests')).to.equal('POST');
    expect(method('Frobnicate the stale VLANs')).to.equal('DELETE');
  });

  it('reads idioms and ditransitive verbs', () => {
    expect(method('Get rid of 2001:db8:10::/48')).to.equal('DELETE');
    expect(method('Give web-07 a second virtual NIC')).to.equal('POST');
    expect(method('Give me the VLANs of ams1')).to.equal('GET');
    // A quantity after the recipient sets its attributes.
    expect(method('Give app-db-01 16 vCPUs and 64 GB of RAM')).to.equal('PATCH');
    expect(method('Patch a fibre between the two switches')).to.equal('POST');
  });

  it('takes the imperative of a later clause, and note-taking as a write', () => {
    expect(method('Our Zurich site is now called ZRH-1, update it')).to.equal('PATCH');
    expect(method('The lab VLAN is gone; delete it')).to.equal('DELETE');
    expect(method('Note down that edge-2 had its PSU swapped')).to.equal('POST');
    expect(method('Why was the firmware job refused? Reject it')).to.equal('POST');
    expect(method('Stack sw-1 and sw-2 into one logical switch')).to.equal('POST');
  });

  it('tells one object from many', () => {
    expect(intentOf('Get a device by its ID').one).to.equal('id');
    expect(intentOf('Show device core-sw-01').one).to.equal('name');
    expect(intentOf('What is at 192.0.2.55').one).to.equal('name');
    expect(intentOf('get ipsec profile').one).to.equal('implied');
    expect(intentOf('Delete all stale cables').many).to.equal(true);
    expect(intentOf('Delete stale cables').many).to.equal(true);
    // "every" in a later clause says what the change is for, not how many objects it touches.
    expect(intentOf('Flag 10.0.5.0/24 as a pool so every address in it is usable').many).to.equal(false);
    expect(intentOf('Disable every port on rtr-old-1').many).to.equal(true);
  });

  it('reads a phrasal verb by its particle, and leaves the particle out of the search words', () => {
    expect(method('Free up 10.9.9.9, that host was scrapped')).to.equal('DELETE');
    expect(method('Freeing up the old prefix')).to.equal('DELETE');
    expect(method('Bring the loaner switch back into service')).to.equal('PATCH');
    expect(method('Hand rack R4 back to the landlord')).to.equal('DELETE');
    expect(method('Hand 198.51.100.0/24 over to tenant Acme')).to.equal('PATCH');
    expect(method('Lock out mlee, the contractor left')).to.equal('PATCH');
    expect(method('Break up the vc-core-01 stack')).to.equal('DELETE');
    expect(method('Turn up ZYO-88213, the new wave from Zayo')).to.equal('POST');
    const freed = intentOf('Free up the prefix');
    expect([freed.verbAt, freed.particleAt]).to.deep.equal([0, 1]);
  });

  it('reads a link of an existing object to another as a change, and a new object added to another as a create', () => {
    // A literal, a capitalised name or "the ..." is an object that exists.
    expect(intentOf('Put VLAN 120 on the uplink of rtr-9').methods).to.include({ PATCH: 1 });
    expect(intentOf('Add Sam to the auditors group').linkAt).to.equal(2);
    expect(intentOf('Assign the VLAN to the trunk').linkAt).to.equal(3);
    expect(intentOf('Move 10.0.0.4 to the lab VRF').linkAt).to.equal(1);
    // A new object is created, whatever it is added to.
    expect(intentOf('Add a VLAN to the campus group').linkAt).to.equal(undefined);
    expect(method('Add a VLAN to the campus group')).to.equal('POST');
    expect(method('add tag to device')).to.equal('POST');
  });

  it('reads a bare object added to what holds many of it as a membership change', () => {
    // A device has `tags` and a user `groups` (many-valued fields); a VLAN has one `group`.
    const holds = new Set(['device tag', 'user group']);
    const linkOf = (query: string) =>
      sut.analyse(query, {
        knows: (term) => NOUNS.has(term),
        isResource: (term) => NOUNS.has(term),
        holdsMany: (resource, held) => holds.has(`${resource} ${held}`),
      }).intent.linkAt;
    expect(linkOf('add tag to device')).to.equal(2);
    expect(linkOf('add user to group')).to.equal(2);
    expect(linkOf('add vlan to vlan group')).to.equal(undefined);
  });

  it('tells the linked object from the one it is linked to', () => {
    const sides = (query: string) =>
      sut
        .analyse(query, { knows: (term) => NOUNS.has(term), isResource: (term) => NOUNS.has(term) })
        .groups.filter(({ side }) => side)
        .map(({ source, side, weight }) => `${source}:${side}:${weight}`);
    // The other object counts in full, not as context; a later preposition is context again.
    expect(sides('Put VLAN 120 on the interface of a device')).to.deep.equal(['vlan:object:1', 'interface:target:1']);
  });
});
