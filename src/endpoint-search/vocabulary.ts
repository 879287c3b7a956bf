import { ENGLISH_STOP_WORDS } from '../kernel/text.js';

/**
 * Network-engineering vocabulary for endpoint search.
 *
 * Engineers ask in their own words ("add a firewall to the DC", "which subnets are free"), while
 * API descriptions use the platform's model names (device, site, prefix). Each concept below maps
 * what people say (`say`: words or phrases, matched on whole words after lower-casing and
 * singularising, longest phrase first) to the words the platform's paths use (`means`).
 *
 * `means` syntax: space-separated groups that must all match (`available ip`), each group a
 * `|`-separated list of alternatives of which the best one counts (`site|location`). Compound
 * path names are written joined, as the index stores them (`device-types` → `devicetype`).
 *
 * The list is about networks, not about one platform version: where Nautobot 1.x, Nautobot 2.x and
 * NetBox name a thing differently (site / location, device role / role), `means` lists both, so
 * whichever the served description uses is found. Add to it freely; keep entries generic.
 */
export interface Concept {
  say: string[];
  means: string;
  /** How much a match counts compared with saying the path word itself (default 0.9). */
  weight?: number;
  /**
   * For a word with two meanings: this reading applies only when the request also says one of these
   * words (singular, lower case), and then it is preferred over the word's plain reading ("port" is a
   * listening service next to "tcp" or "listen", an interface otherwise).
   */
  when?: string[];
}

export const CONCEPTS: Concept[] = [
  // --- devices and hardware
  {
    say: [
      'router', 'switch', 'firewall', 'box', 'host', 'hostname', 'appliance', 'network device', 'network element', 'chassis',
      'gear', 'equipment', 'hardware', 'access point', 'wireless access point', 'wap', 'load balancer', 'leaf', 'spine',
      'core switch', 'access switch', 'edge router', 'core router', 'pe router', 'ce router', 'cpe', 'node', 'server', 'machine',
      'unit', 'asset', 'l3 switch', 'layer 3 switch', 'multilayer switch', 'tor', 'top of rack switch', 'nf', 'ngfw', 'wan edge', 'fw', 'rtr', 'sw',
    ],
    means: 'device',
  },
  { say: ['device model', 'hardware model', 'model', 'sku', 'part number', 'product', 'hardware type', 'platform model'], means: 'devicetype|moduletype|racktype', weight: 0.85 },
  { say: ['vendor', 'make', 'oem', 'brand', 'maker'], means: 'manufacturer' },
  {
    say: ['os', 'operating system', 'network os', 'nos', 'software', 'firmware', 'software version', 'napalm driver', 'network driver', 'ios', 'junos', 'eos', 'nxos'],
    means: 'platform',
  },
  { say: ['device role', 'device function', 'function', 'purpose', 'role'], means: 'devicerole|role', weight: 0.85 },
  { say: ['stack', 'switch stack', 'stacking', 'vc', 'vpc domain', 'stacked switch'], means: 'virtualchassis' },
  { say: ['vdc', 'virtual device context'], means: 'virtualdevicecontext', weight: 0.8 },
  // Alone, a "context" is the configuration data most automation talks about; a VDC where that is all there is.
  { say: ['context'], means: 'configcontext|virtualdevicecontext', weight: 0.8 },
  {
    say: [
      'line card', 'linecard', 'transceiver', 'sfp', 'optic', 'optics', 'qsfp', 'module', 'supervisor', 'supervisor engine', 'route processor', 'rp', 'routing engine',
      'fan tray', 'spare part', 'fru', 'component', 'part', 'spares stock', 'stock',
    ],
    means: 'inventoryitem|module',
    weight: 0.85,
  },
  { say: ['module slot', 'line card slot', 'slot', 'line card bay', 'linecard bay', 'module bay', 'card bay'], means: 'modulebay|devicebay', weight: 0.85 },
  { say: ['blade slot', 'child device slot'], means: 'devicebay' },
  { say: ['inventory item', 'inventory items'], means: 'inventoryitem', weight: 1 },

  // --- ports, interfaces, cabling
  {
    say: [
      'port', 'nic', 'network interface', 'ethernet', 'ethernet port', 'gig', 'gigabit', 'ten gig', 'uplink', 'downlink', 'lag', 'port channel',
      'portchannel', 'bond', 'bundle', 'aggregate ethernet', 'ae', 'sub interface', 'subinterface', 'svi', 'loopback interface', 'switchport',
      'access port', 'trunk port', 'trunk', 'physical port', 'link aggregation', 'lacp', 'etherchannel', 'mgmt interface', 'management interface',
    ],
    means: 'interface',
    weight: 0.8,
  },
  { say: ['console', 'console port', 'serial console', 'serial port', 'console line'], means: 'consoleport|consoleserverport' },
  { say: ['terminal server', 'console server', 'oob console'], means: 'consoleserverport' },
  { say: ['patch panel', 'patch panel port', 'patch port'], means: 'frontport|rearport' },
  { say: ['back of', 'rear of', 'back side', 'rear side', 'rear port'], means: 'rearport|rear', weight: 1 },
  { say: ['front of', 'front side', 'front port'], means: 'frontport|front', weight: 1 },
  { say: ['patch cord', 'patch cable', 'fiber', 'fibre', 'wire', 'wiring', 'copper', 'jumper', 'physical link', 'cabling', 'cross connect', 'xconnect'], means: 'cable' },
  { say: ['connection', 'link', 'connected', 'connected to', 'plugged into', 'patched to', 'other end', 'far end', 'remote end'], means: 'cable|connection|trace', weight: 0.7 },
  { say: ['cable path', 'cable trace', 'path trace', 'follow the cable', 'follow cable', 'end to end path', 'trace', 'traceroute'], means: 'trace|path', weight: 1 },
  { say: ['neighbor', 'neighbour', 'lldp', 'cdp', 'lldp neighbor', 'lldp neighbour', 'cdp neighbor', 'cdp neighbour', 'connected device', 'peer device', 'what is plugged', 'plugged into'], means: 'connecteddevice|trace', weight: 0.85 },

  // --- power
  { say: ['power circuit', 'power feed', 'feed', 'whip', 'power drop', 'utility feed', 'power supply line'], means: 'powerfeed' },
  { say: ['pdu', 'power distribution unit', 'power strip', 'socket', 'receptacle', 'outlet', 'power outlet'], means: 'poweroutlet' },
  { say: ['breaker panel', 'distribution board', 'electrical panel', 'power panel', 'panelboard', 'panel'], means: 'powerpanel' },
  { say: ['panel'], means: 'frontport|rearport', when: ['patch', 'fiber', 'fibre', 'odf', 'cassette', 'jumper'] },
  { say: ['circuit'], means: 'powerfeed', when: ['power', 'amp', 'amperage', 'volt', 'voltage', 'breaker', 'phase', 'kw'] },
  { say: ['power supply', 'power inlet', 'power input', 'power port', 'psu', 'power supply unit'], means: 'powerport|inventoryitem' },

  // --- places and racks
  { say: ['cabinet', 'enclosure', 'frame', 'rack cabinet', 'server rack', 'equipment rack'], means: 'rack' },
  { say: ['rack view', 'rack diagram', 'rack layout', 'rack face', 'front view', 'rack unit', 'rack units', 'ru', 'u position', 'elevation', 'rack elevation'], means: 'elevation', weight: 1 },
  { say: ['look like', 'laid out', 'layout', 'drawing', 'diagram'], means: 'elevation', weight: 0.8 },
  { say: ['front', 'rear', 'face'], means: 'elevation', weight: 0.8, when: ['rack', 'cabinet', 'look', 'view', 'drawing', 'diagram', 'layout'] },
  { say: ['rack reservation', 'reserve rack space', 'reserve rack unit', 'book rack unit', 'book rack space', 'rack space', 'reserved unit', 'reservation', 'hold rack space'], means: 'rackreservation' },
  // "Who has space held in R14": units held, booked or claimed in a rack are reserved.
  { say: ['held', 'hold', 'holding', 'booked', 'claimed'], means: 'rackreservation', weight: 0.9, when: ['rack', 'cabinet', 'space', 'unit', 'units'] },
  { say: ['rack group', 'row', 'cage', 'aisle', 'suite'], means: 'rackgroup|location', weight: 0.8 },
  {
    say: ['facility', 'dc', 'datacenter', 'data center', 'datacentre', 'data centre', 'pop', 'point of presence', 'colo', 'colocation', 'campus', 'branch', 'branch office', 'office', 'premises', 'store', 'shop', 'retail store', 'warehouse', 'hub site', 'remote site'],
    means: 'site|location',
  },
  { say: ['building', 'floor', 'room', 'closet', 'wiring closet', 'idf', 'mdf', 'hall', 'data hall', 'location'], means: 'location|site', weight: 0.85 },
  { say: ['site'], means: 'site|location', weight: 1 },
  { say: ['geography', 'geo', 'area', 'country', 'continent', 'metro', 'city', 'province', 'territory', 'zone'], means: 'region', weight: 0.8 },
  { say: ['site group', 'site cluster', 'market'], means: 'sitegroup|region', weight: 0.85 },

  // --- IP addressing
  { say: ['subnet', 'subnets', 'network', 'cidr', 'block', 'netblock', 'supernet', 'ip block', 'ip network', 'address space', 'ip space', 'ip subnet', 'range of addresses', 'summary route', 'route'], means: 'prefix', weight: 0.9 },
  { say: ['ip', 'ip address', 'ipv4', 'ipv6', 'ipv4 address', 'ipv6 address', 'address', 'host address', 'loopback', 'loopback address', 'management ip', 'mgmt ip', 'v4 address', 'v6 address', 'vip', 'virtual ip', 'primary ip'], means: 'ipaddress|ip', weight: 1 },
  {
    say: ['next free ip', 'next available ip', 'free ip', 'available ip', 'unused ip', 'unallocated ip', 'spare ip', 'free address', 'available address', 'next ip', 'unassigned ip', 'allocate ip', 'allocate an ip', 'allocate the next ip', 'reserve an ip', 'grab an ip'],
    means: 'available ip',
    weight: 1,
  },
  {
    say: ['free prefix', 'available prefix', 'next free prefix', 'next available prefix', 'free subnet', 'available subnet', 'next free subnet', 'next available subnet', 'unused subnet', 'carve', 'carve out', 'child prefix', 'sub prefix', 'allocate subnet', 'allocate a subnet', 'allocate prefix', 'free network', 'free block'],
    means: 'available prefix',
    weight: 1,
  },
  { say: ['free vlan', 'available vlan', 'next free vlan', 'next available vlan', 'unused vlan'], means: 'available vlan', weight: 1 },
  { say: ['free asn', 'available asn', 'next free asn', 'next available asn', 'next unused as number', 'unused as number', 'free as number', 'next as number', 'next free as number'], means: 'available asn', weight: 1 },
  { say: ['unused', 'spare', 'unallocated', 'unassigned', 'free', 'next free', 'next unused', 'next available', 'still free', 'still available'], means: 'available', weight: 0.6 },
  { say: ['ip range', 'address range', 'dhcp range', 'dhcp pool', 'dhcp', 'pool', 'ip pool', 'address pool', 'dhcp scope'], means: 'iprange|prefix', weight: 0.85 },
  { say: ['top level block', 'allocation', 'rir allocation', 'aggregate', 'public block', 'provider allocation'], means: 'aggregate', weight: 0.9 },
  { say: ['registry', 'regional internet registry', 'arin', 'ripe', 'apnic', 'lacnic', 'afrinic'], means: 'rir' },
  {
    say: ['l3vpn', 'l3 vpn', 'routing table', 'routing instance', 'virtual routing', 'virtual routing and forwarding', 'vpn routing table', 'routing domain', 'vrf instance', 'routing context', 'tenant routing table'],
    means: 'vrf',
  },
  { say: ['rt', 'route target', 'import target', 'export target', 'rt community'], means: 'routetarget' },
  { say: ['rd', 'route distinguisher'], means: 'vrf', weight: 0.8 },
  { say: ['broadcast domain', 'layer 2 segment', 'l2 segment', 'dot1q', '802 1q', 'vlan id', 'vid', 'tag id', 'layer 2 network', 'l2 network'], means: 'vlan' },
  { say: ['vlan group', 'vlan pool', 'vlan range', 'vlan block'], means: 'vlangroup' },
  { say: ['as number', 'autonomous system', 'bgp as', 'asn'], means: 'asn' },
  { say: ['as number pool', 'as number range', 'asn pool', 'asn range', 'as range', 'as pool', 'autonomous system range', 'private as range'], means: 'asnrange|asn' },
  { say: ['hsrp', 'vrrp', 'glbp', 'carp', 'first hop redundancy', 'gateway redundancy', 'fhrp'], means: 'fhrpgroup' },
  { say: ['listening port', 'tcp port', 'udp port', 'application port', 'network service', 'daemon', 'service port', 'protocol port'], means: 'service' },
  { say: ['port'], means: 'service', when: ['listen', 'listening', 'tcp', 'udp', 'protocol', 'daemon', 'application', 'ssh', 'http', 'https'] },
  { say: ['mac', 'mac address', 'hardware address', 'ethernet address'], means: 'macaddress' },
  { say: ['l2vpn', 'evpn', 'vxlan', 'vpls', 'pseudowire', 'epl', 'evpl'], means: 'l2vpn' },
  { say: ['vpn tunnel', 'ipsec tunnel', 'gre tunnel', 'tunnel'], means: 'tunnel' },
  { say: ['ssid', 'wlan', 'wifi', 'wi fi', 'wireless network'], means: 'wirelesslan' },
  { say: ['radio link', 'radio bridge', 'wireless bridge', 'wireless link', 'microwave link', 'microwave', 'point to point wireless', 'point to point radio', 'ptp link', 'radio'], means: 'wirelesslink' },

  // --- circuits and providers
  { say: ['wan link', 'isp link', 'carrier circuit', 'leased line', 'mpls circuit', 'transit', 'internet circuit', 'private line', 'dia', 'mpls link', 'wan circuit', 'telco circuit', 'last mile', 'backhaul', 'circuit id', 'wave', 'wavelength', 'lambda', 'dark fiber', 'dark fibre', 'ethernet private line', 'epl circuit'], means: 'circuit' },
  { say: ['carrier', 'isp', 'telco', 'service provider', 'internet provider', 'upstream'], means: 'provider' },
  { say: ['billing account', 'provider account', 'carrier account', 'account number', 'customer account'], means: 'provideraccount' },
  { say: ['circuit end', 'a side', 'z side', 'circuit termination', 'termination', 'handoff', 'demarc'], means: 'circuittermination|termination', weight: 0.85 },
  { say: ['provider network', 'mpls cloud', 'carrier network', 'cloud'], means: 'providernetwork', weight: 0.85 },

  // --- organisation
  { say: ['customer', 'client', 'business unit', 'department', 'organization', 'organisation', 'org', 'division', 'owner'], means: 'tenant', weight: 0.85 },
  { say: ['contact', 'person', 'poc', 'point of contact', 'on call', 'escalation contact', 'noc contact', 'email', 'who do i call', 'who to call', 'who should i call', 'phone number'], means: 'contact', weight: 0.85 },
  { say: ['contact for', 'technical contact', 'primary contact', 'billing contact', 'responsible for', 'contact assignment'], means: 'contactassignment|contact' },

  // --- virtualisation
  { say: ['vm', 'virtual machine', 'guest', 'virtual server', 'instance', 'vps', 'virtual host', 'cloud instance', 'ec2'], means: 'virtualmachine' },
  { say: ['hypervisor cluster', 'vsphere cluster', 'esxi cluster', 'vmware cluster', 'kubernetes cluster', 'k8s cluster', 'proxmox cluster', 'hyper v cluster', 'farm'], means: 'cluster' },
  { say: ['vnic', 'virtual nic', 'vm interface', 'virtual machine interface', 'vm nic', 'vif', 'virtual interface'], means: 'virtualization interface|vminterface', weight: 1 },
  { say: ['virtual disk', 'vm disk', 'vdisk', 'volume'], means: 'virtualdisk' },

  // --- automation, data and audit
  { say: ['script', 'automation', 'workflow', 'runbook', 'playbook', 'job script', 'plugin job'], means: 'job|script', weight: 0.85 },
  { say: ['task', 'background job', 'queued job', 'worker job'], means: 'backgroundtask|job|task', weight: 0.85 },
  { say: ['job output', 'task result', 'run history', 'job status', 'job run', 'job execution', 'execution result', 'job result', 'result', 'outcome', 'output'], means: 'jobresult', weight: 0.9 },
  // "Did last night's run fail?": a run that happened is its result, not a new one.
  { say: ['run', 'execution'], means: 'jobresult', when: ['fail', 'failed', 'succeed', 'succeeded', 'error', 'errored', 'last', 'yesterday', 'night', 'finish', 'finished', 'pass', 'passed'] },
  { say: ['job log', 'execution log', 'task log', 'run log', 'log'], means: 'joblog|jobresult', weight: 0.9 },
  { say: ['scheduled job', 'scheduled task', 'cron job', 'job schedule', 'schedule'], means: 'scheduledjob' },
  { say: ['commit', 'latest commit', 'git pull', 'pull from git', 'refresh from git', 'resync'], means: 'sync', weight: 0.9 },
  // Pulling from a repository (not pulling a list of devices) is a sync.
  { say: ['pull', 'pull in', 're pull'], means: 'sync', weight: 0.9, when: ['git', 'github', 'gitlab', 'repo', 'repository', 'upstream', 'source'] },
  { say: ['repo', 'git repo', 'git repository', 'repository', 'git', 'github', 'gitlab', 'bitbucket', 'gitea'], means: 'gitrepository|datasource', weight: 0.9 },
  { say: ['custom attribute', 'extra field', 'user defined field', 'cf', 'custom property', 'custom field'], means: 'customfield' },
  { say: ['dropdown choice', 'custom field choice', 'choice', 'option', 'choice set', 'allowed value', 'picklist'], means: 'customfieldchoice|customfieldchoiceset|choice', weight: 0.8 },
  { say: ['label', 'marker', 'badge', 'keyword', 'tag'], means: 'tag' },
  { say: ['lifecycle state', 'state', 'status value', 'status option', 'status choice', 'operational state', 'lifecycle status'], means: 'status', weight: 0.85 },
  {
    say: ['change log', 'changelog', 'audit log', 'audit trail', 'history', 'who changed', 'activity', 'change history', 'edit history', 'object change', 'revision', 'modification history', 'what changed', 'recent changes'],
    means: 'objectchange',
  },
  {
    say: ['who touched', 'who modified', 'who edited', 'who updated', 'who deleted', 'who removed', 'who added', 'who created', 'who renamed', 'last touched', 'last modified', 'last changed', 'last edited'],
    means: 'objectchange',
  },
  { say: ['journal', 'note', 'comment', 'journal entry'], means: 'journalentry|note', weight: 0.85 },
  { say: ['note down', 'write down', 'jot down', 'make a note', 'take a note', 'log that', 'for the record'], means: 'journalentry|note' },
  { say: ['api key', 'api token', 'access token', 'auth token', 'token', 'key'], means: 'token' },
  { say: ['account', 'login', 'user account', 'operator', 'admin', 'administrator', 'user'], means: 'user', weight: 0.8 },
  { say: ['contractor', 'employee', 'staff', 'staff member', 'colleague', 'coworker', 'new hire', 'intern'], means: 'user|contact', weight: 0.8 },
  { say: ['user group', 'team', 'security group'], means: 'group' },
  { say: ['permission', 'access right', 'rbac', 'privilege', 'acl on objects', 'object permission', 'allowed to', 'permitted to', 'who can', 'read only access', 'write access', 'read access', 'access to', 'rights'], means: 'permission' },
  { say: ['password', 'credential', 'credentials', 'secret', 'vault secret'], means: 'secret' },
  {
    say: ['snmp community', 'community string', 'pre shared key', 'preshared key', 'psk', 'shared secret', 'enable password', 'ssh key', 'private key', 'somewhere safe', 'securely', 'safely', 'encrypted'],
    means: 'secret',
    weight: 0.85,
  },
  { say: ['secret group', 'credential set', 'credentials group'], means: 'secretgroup' },
  // How a device or a service logs in is its credentials, not a user account.
  { say: ['log in', 'logs in', 'sign in', 'signs in', 'authenticate', 'login credential'], means: 'secretgroup|secret', weight: 0.9 },
  { say: ['callback', 'http hook', 'hook', 'outbound webhook', 'notification url', 'web hook', 'chat channel', 'slack', 'teams channel', 'every time', 'each time'], means: 'webhook|eventrule', weight: 0.9 },
  { say: ['notify', 'notification', 'alert', 'alerts', 'unread'], means: 'notification|eventrule|webhook', weight: 0.85 },
  { say: ['notified', 'get notified', 'subscribe', 'subscribed', 'subscription', 'watch', 'watching', 'keep an eye on'], means: 'subscription|notification|eventrule|webhook', weight: 0.85 },
  { say: ['event rule', 'trigger rule', 'automation rule'], means: 'eventrule' },
  { say: ['config context', 'configuration context', 'context data', 'host vars', 'group vars', 'config data', 'configuration data', 'variable'], means: 'configcontext', weight: 0.85 },
  { say: ['config template', 'jinja template', 'configuration template', 'golden config template'], means: 'configtemplate|exporttemplate', weight: 0.85 },
  { say: ['rendered config', 'render config', 'generate config', 'intended config', 'device config', 'configuration', 'running config', 'config'], means: 'renderconfig|configcontext|napalm', weight: 0.8 },
  { say: ['live data', 'live state', 'get facts', 'facts', 'real time', 'napalm', 'getter', 'live'], means: 'napalm', weight: 0.9 },
  // Asked of the device rather than of the records: "... from the box itself", "straight from the router".
  {
    say: ['itself', 'directly from', 'straight from', 'box itself', 'device itself', 'router itself', 'switch itself'],
    means: 'napalm',
    weight: 1,
  },
  { say: ['export template', 'export format', 'csv export template'], means: 'exporttemplate' },
  { say: ['come with', 'comes with', 'out of the box', 'by default', 'factory default', 'blueprint'], means: 'template', weight: 0.8 },
  { say: ['dynamic group', 'smart group', 'saved query', 'filter group'], means: 'dynamicgroup|savedfilter|graphqlquery', weight: 0.85 },
  { say: ['graphql', 'graph ql', 'gql', 'graph query'], means: 'graphql', weight: 1 },
  // Several kinds of object nested in one answer is what the GraphQL endpoint is for.
  { say: ['nested', 'one round trip', 'single round trip', 'one query', 'single query', 'one call', 'single call'], means: 'graphql', weight: 0.85 },
  { say: ['relationship', 'relation', 'association', 'link between objects'], means: 'relationship', weight: 0.8 },
  { say: ['computed field', 'calculated field', 'derived field'], means: 'computedfield' },
  { say: ['custom link', 'external link', 'quick link'], means: 'customlink' },
  { say: ['image', 'photo', 'picture', 'attachment', 'image attachment'], means: 'imageattachment' },
  { say: ['content type', 'object type', 'model type'], means: 'contenttype|objecttype' },
  { say: ['background task', 'worker queue', 'rq job', 'queue'], means: 'backgroundtask|backgroundqueue', weight: 0.8 },

  // --- the API itself
  { say: ['api status', 'health', 'healthy', 'health check', 'alive', 'liveness', 'readiness', 'version', 'api version', 'platform version', 'uptime', 'reachable', 'service status', 'server status', 'system status'], means: 'status api', weight: 0.9 },
  { say: ['openapi', 'open api', 'swagger', 'schema', 'api schema', 'api spec', 'api specification', 'specification', 'api description', 'api doc', 'api docs', 'api documentation', 'openapi document', 'rest schema'], means: 'swagger|schema|doc|openapi', weight: 1 },
  { say: ['user preference', 'my preference', 'preference', 'user config', 'user setting'], means: 'config', weight: 0.8 },
];

/**
 * Words that carry little meaning on their own in a request ("available jobs", "the inventory",
 * "device details"): they still count, at this weight, so that a query made only of them works.
 */
export const WEAK_WORDS: Record<string, number> = {
  available: 0.25,
  inventory: 0.2,
  detail: 0.15,
  details: 0.15,
  info: 0.15,
  information: 0.15,
  record: 0.2,
  entry: 0.3,
  object: 0.3,
  item: 0.3,
  value: 0.2,
  data: 0.2,
  type: 0.6,
  new: 0.1,
  existing: 0.1,
  current: 0.15,
  specific: 0.1,
  particular: 0.1,
  single: 0.1,
  one: 0.1,
  multiple: 0.1,
  attribute: 0.3,
  field: 0.5,
  setting: 0.4,
  name: 0.3,
  id: 0.2,
  number: 0.3,
  query: 0.3,
};

/** Words that never help find an endpoint: English function words and words every request to any API shares. */
export const STOP_WORDS = new Set([
  ...ENGLISH_STOP_WORDS,
  ...'nautobot netbox api rest endpoint endpoints call request using use want need like make let give tell know'.split(' '),
]);

/** Prepositions after which words describe context ("to a switch", "from a subnet") rather than the target. */
export const CONTEXT_PREPOSITIONS = new Set(
  'to from on in into onto at for of with within inside under behind belonging across per via between through against whenever when if once after'.split(' '),
);
