import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseDescription } from '../../src/endpoint-search/endpoint-document.js';
import { EndpointSearch } from '../../src/endpoint-search/endpoint-search.js';
import { QueryAnalyser } from '../../src/endpoint-search/query-analysis.js';
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
    const queries = readFileSync(fixturePath('endpoint-queries.dev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Query);
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
    expect(await top(netbox, 'Next free IP in a subnet')).to.include.oneOf([
      'GET /api/ipam/prefixes/{id}/available-ips/',
      'POST /api/ipam/prefixes/{id}/available-ips/',
    ]);
  });

  it('scores between 0 and 1, best first', async () => {
    const results = await nautobot.search('list devices', 10);
    expect(results).to.have.length(10);
    for (const [i, r] of results.entries()) {
      expect(r.score).to.be.within(0, 1);
      if (i > 0) expect(r.score).to.be.at.most(results[i - 1]!.score);
    }
  });

  it('reads near spellings and never answers nothing', async () => {
    expect(await top(nautobot, 'list all devcies')).to.deep.equal(['GET /api/dcim/devices/']);
    const unknown = await nautobot.search('zzzz qqqq', 5);
    expect(unknown).to.have.length(5);
    expect(unknown.every(({ score, endpoint }) => score === 0 && endpoint.method === 'GET')).to.equal(true);
  });

  it('finds what a literal names when the request names no resource', async () => {
    expect(await top(netbox, "What's at 192.0.2.55?")).to.deep.equal(['GET /api/ipam/ip-addresses/']);
    expect(await top(netbox, 'Who owns AS65010?')).to.deep.equal(['GET /api/ipam/asns/']);
    expect(await top(netbox, 'Shut xe-0/0/5 on access-3')).to.include.oneOf([
      'PATCH /api/dcim/interfaces/{id}/',
      'PUT /api/dcim/interfaces/{id}/',
    ]);
    expect(await top(nautobot, 'Mark core-sw-02 as planned')).to.include.oneOf([
      'PATCH /api/dcim/devices/{id}/',
      'PUT /api/dcim/devices/{id}/',
    ]);
    // Any letter run of a name the vocabulary knows says what it names, not only the first.
    expect(await top(nautobot, 'Move app-vm-9 to the DR cluster')).to.include.oneOf([
      'PATCH /api/virtualization/virtual-machines/{id}/',
      'PUT /api/virtualization/virtual-machines/{id}/',
    ]);
  });

  it('reads with a query language that takes its query by POST', async () => {
    expect(await top(nautobot, 'Fetch devices with their interfaces and their IPs nested, in one round trip')).to.deep.equal([
      'POST /api/graphql/',
    ]);
  });

  it('reads a word with two meanings by the rest of the request', async () => {
    expect(await top(netbox, 'Which TCP ports does the RADIUS server listen on?')).to.deep.equal(['GET /api/ipam/services/']);
    expect(await top(netbox, 'Which ports on leaf-3 are down?')).to.deep.equal(['GET /api/dcim/interfaces/']);
    expect(await top(nautobot, 'Which power circuit feeds rack R2?')).to.deep.equal(['GET /api/dcim/power-feeds/']);
  });

  it('reads what a verb makes and a span of rack units', async () => {
    expect(await top(netbox, 'Plug psu1 of nas-3 into outlet 12 on pdu-a2')).to.deep.equal(['POST /api/dcim/cables/']);
    expect(await top(nautobot, 'Let the contractors edit circuits')).to.deep.equal(['POST /api/users/permissions/']);
    expect(await top(netbox, 'Hold units 30 to 32 in rack R9 for the storage team', 5)).to.include('POST /api/dcim/rack-reservations/');
    // Scheduling a job runs it later.
    expect(await top(nautobot, 'Schedule the firmware compliance job for Sunday 2am', 5)).to.include('POST /api/extras/jobs/{id}/run/');
    // A product name nobody knows where the object belongs is a device's.
    expect(await top(nautobot, 'Enrol the new Meraki MX at the Porto shop', 5)).to.include('POST /api/dcim/devices/');
  });

  it("reads the platform's own words for areas no vocabulary covers", async () => {
    const plain = new EndpointSearch(parseDescription(fixture('netbox-openapi.json')).endpoints, { analyser: new QueryAnalyser([]) });
    // `ssid` is a field of wireless LANs only; the path never says it.
    expect((await plain.search('which ssid is broadcast in the lobby', 1)).map(({ endpoint }) => endpoint.path)).to.deep.equal([
      '/api/wireless/wireless-lans/',
    ]);
    // `upstream_speed` is a field of circuit terminations: the two words together name it, although "upstream" alone reads as a provider.
    expect(await top(nautobot, 'Change the upstream speed of CID-7788 to 10G')).to.include.oneOf([
      'PATCH /api/circuits/circuit-terminations/{id}/',
      'PUT /api/circuits/circuit-terminations/{id}/',
    ]);
  });

  it("reads a name the words make together ahead of the vocabulary's reading of some of them", async () => {
    // "power port" is the vocabulary's `powerport`; with "template" the words name `powerporttemplate`.
    expect(await top(nautobot, 'add a power port template')).to.deep.equal(['POST /api/dcim/power-port-templates/']);
    expect(await top(nautobot, 'add a power port')).to.deep.equal(['POST /api/dcim/power-ports/']);
  });

  it('reads a name two namespaces share as the plain resource unless the request says the variant', async () => {
    // `/dcim/interfaces/` answers `Interface`, `/virtualization/interfaces/` `VMInterface`.
    expect(await top(netbox, 'interface mtu update')).to.deep.equal(['PATCH /api/dcim/interfaces/{id}/']);
    expect(await top(netbox, 'vm interface list')).to.deep.equal(['GET /api/virtualization/interfaces/']);
    // A field only the variant has (`virtual_machine`) says it is meant: it is not ranked below the plain one.
    expect(await top(netbox, 'Which interfaces does virtual machine web-3 have?', 4)).to.include('GET /api/virtualization/interfaces/');
  });

  it('changes, in a link, the object whose fields name the other one, or creates a link object', async () => {
    // An interface's body has `untagged_vlan` and `tagged_vlans`: the interface is what changes.
    expect(await top(nautobot, 'Put VLAN 120 on the uplink port of rtr-9', 2)).to.include.oneOf([
      'PATCH /api/dcim/interfaces/{id}/',
      'PUT /api/dcim/interfaces/{id}/',
    ]);
    // A user's body has `groups`.
    expect(await top(nautobot, 'Add Sam to the auditors group', 2)).to.include.oneOf([
      'PATCH /api/users/users/{id}/',
      'PATCH /api/users/groups/{id}/',
    ]);
    // Agent words: a device holds many tags, so adding one changes the device.
    expect(await top(nautobot, 'add tag to device')).to.include.oneOf(['PATCH /api/dcim/devices/{id}/', 'PUT /api/dcim/devices/{id}/']);
    // NetBox links a VPN to anything through a termination (`assigned_object_type` + `assigned_object_id`).
    expect(await top(netbox, 'Attach VXLAN 7002 to the new border leaf', 3)).to.include('POST /api/vpn/l2vpn-terminations/');
  });

  it('reads a phrasal verb, the device asked directly and how something logs in', async () => {
    expect(await top(nautobot, 'Free up 10.44.0.9, the camera was removed', 3)).to.include('DELETE /api/ipam/ip-addresses/{id}/');
    expect(await top(nautobot, 'Bring the spare route processor back into stock', 3)).to.include('PATCH /api/dcim/inventory-items/{id}/');
    expect(await top(nautobot, 'Show the ARP table straight from the device spine-2', 3)).to.include('GET /api/dcim/devices/{id}/napalm/');
    expect(await top(nautobot, 'How do our firewalls log in to the backup server?', 2)).to.include.oneOf([
      'GET /api/extras/secrets-groups/',
      'GET /api/extras/secrets/',
    ]);
  });

  it('reads pulling from a repository as a sync and any other pull as a read, and rack space held as reserved', async () => {
    expect(await top(netbox, 'Pull the templates from our git data source now', 2)).to.include('POST /api/core/data-sources/{id}/sync/');
    expect(await top(nautobot, 'The fix is in the golden config repo, pull it again', 1)).to.deep.equal([
      'POST /api/extras/git-repositories/{id}/sync/',
    ]);
    expect(await top(netbox, 'Pull the interface list of sw1')).to.deep.equal(['GET /api/dcim/interfaces/']);
    expect(await top(nautobot, 'Who has space held in rack R14, and until when?')).to.deep.equal(['GET /api/dcim/rack-reservations/']);
  });
});
