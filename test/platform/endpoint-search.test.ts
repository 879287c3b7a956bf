import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseDescription } from '../../shared/platform/endpoint-document.js';
import { EndpointSearch } from '../../shared/platform/endpoint-search.js';
import { detectIntent } from '../../shared/platform/intent.js';
import { fixture, fixturePath } from './support/stub-platform.js';

interface Query {
  query: string;
  expected: Array<{ method: string; path: string }>;
}

describe(EndpointSearch.name, () => {
  const nautobot = new EndpointSearch(parseDescription(fixture('nautobot-openapi.json')).endpoints);
  const netbox = new EndpointSearch(parseDescription(fixture('netbox-openapi.json')).endpoints);

  async function top(search: EndpointSearch, query: string, n = 1): Promise<string[]> {
    return (await search.search(query, n)).map(({ endpoint }) => `${endpoint.method} ${endpoint.path}`);
  }

  it('finds the accepted endpoint in the top 5 for at least 95% of the development queries (lexical only)', async () => {
    const queries = readFileSync(fixturePath('endpoint-queries.dev.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Query);
    let hits = 0;
    for (const { query, expected } of queries) {
      const results = await nautobot.search(query, 5);
      if (results.some(({ endpoint }) => expected.some((e) => e.method === endpoint.method && e.path === endpoint.specPath))) hits += 1;
    }
    expect(hits / queries.length).to.be.at.least(0.95);
  });

  it('understands network wording the description never uses', async () => {
    expect(await top(nautobot, 'Onboard a new firewall')).to.deep.equal(['POST /api/dcim/devices/']);
    expect(await top(nautobot, 'Show me every cabinet in the facility')).to.deep.equal(['GET /api/dcim/racks/']);
    expect(await top(nautobot, 'What subnets do we have?')).to.deep.equal(['GET /api/ipam/prefixes/']);
    expect(await top(nautobot, 'Set up a new L3VPN routing table for a customer')).to.deep.equal(['POST /api/ipam/vrfs/']);
    expect(await top(nautobot, 'Decommission router core-rtr-01')).to.deep.equal(['DELETE /api/dcim/devices/{id}/']);
    expect(await top(nautobot, 'Rename a facility')).to.include.oneOf(['PATCH /api/dcim/sites/{id}/', 'PUT /api/dcim/sites/{id}/']);
  });

  it('works on a NetBox description with its own layout', async () => {
    expect(await top(netbox, 'Add a new switch')).to.deep.equal(['POST /api/dcim/devices/']);
    expect(await top(netbox, 'Which VMs run on a cluster')).to.deep.equal(['GET /api/virtualization/virtual-machines/']);
    expect(await top(netbox, 'Next free IP in a subnet')).to.include.oneOf(['GET /api/ipam/prefixes/{id}/available-ips/', 'POST /api/ipam/prefixes/{id}/available-ips/']);
  });

  it('scores between 0 and 1, best first', async () => {
    const results = await nautobot.search('list devices', 10);
    expect(results).to.have.length(10);
    for (const [i, r] of results.entries()) {
      expect(r.score).to.be.within(0, 1);
      if (i > 0) expect(r.score).to.be.at.most(results[i - 1]!.score);
    }
  });

  it('returns nothing for words it does not know', async () => {
    expect(await nautobot.search('zzzz qqqq', 5)).to.deep.equal([]);
  });
});

describe('detectIntent', () => {
  const method = (query: string) => Object.entries(detectIntent(query).methods).sort((a, b) => b[1] - a[1])[0]![0];
  it('reads the method from the verb', () => {
    expect(method('Add a VLAN')).to.equal('POST');
    expect(method('Onboard the new leaf')).to.equal('POST');
    expect(method('Bump the firmware on a box')).to.equal('PATCH');
    expect(method('Replace the whole site record')).to.equal('PUT');
    expect(method('Decommission the old firewall')).to.equal('DELETE');
    expect(method('Which prefixes are free')).to.equal('GET');
    expect(method('Which VLAN should I delete')).to.equal('DELETE');
    expect(method('devices in ams1')).to.equal('GET');
  });
  it('tells one object from many', () => {
    expect(detectIntent('Get a device by its ID').one).to.equal('id');
    expect(detectIntent('Show device core-sw-01').one).to.equal('name');
    expect(detectIntent('Delete all stale cables').many).to.equal(true);
  });
});
