import dns, { type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomainError, StartupError } from '../errors.js';

/** How long a write waits for a name to resolve before leaving the decision to request time. */
const WRITE_LOOKUP_TIMEOUT_MS = 2_000;

/** A connection the outbound policy does not allow. The message names the host, never what answers there. */
export class OutboundRefusedError extends DomainError {
  readonly code = 'EOUTBOUNDREFUSED';

  constructor(readonly host: string) {
    super(
      `${host} is an internal address (loopback, private, link-local or metadata range): only a superuser may set it, or OUTBOUND_ALLOW must list it`,
    );
  }
}

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** `[::1]` → `::1`; names in lower case without a trailing dot. */
function bareHost(host: string): string {
  return host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** A network, or a host name; null when the entry is neither. */
function parseEntry(raw: string): Network | string | null {
  const entry = bareHost(raw.trim());
  if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
  if (net.isIP(entry)) {
    const address = ipaddr.process(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  }
  return HOST_NAME.test(entry) ? entry : null;
}

/** A net/dns `lookup` function, as `net.connect` and `http.request` take it. */
export type LookupFunction = (
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * Which addresses a destination set by someone other than a superuser may reach: public unicast
 * addresses, plus what OUTBOUND_ALLOW lists (CIDRs, addresses, host names). Loopback, private,
 * link-local (cloud metadata included), carrier-grade NAT, unique-local, mapped and every other
 * special range are internal. Decided on the resolved address, at the moment of connecting, so a
 * name cannot resolve to one address when written and another when used.
 */
export class OutboundPolicy {
  private constructor(
    private readonly networks: Network[],
    private readonly hosts: ReadonlySet<string>,
  ) {}

  /** Parses OUTBOUND_ALLOW entries; a bad one throws with its text. */
  static fromList(entries: string[]): OutboundPolicy {
    const networks: Network[] = [];
    const hosts = new Set<string>();
    for (const raw of entries) {
      const entry = parseEntry(raw);
      if (!entry) throw new StartupError(`'${raw}' is neither a CIDR, an address nor a host name`);
      if (typeof entry === 'string') hosts.add(entry);
      else networks.push(entry);
    }
    return new OutboundPolicy(networks, hosts);
  }

  /** Whether one OUTBOUND_ALLOW entry is a CIDR, an address or a host name. */
  static isEntry(raw: string): boolean {
    return parseEntry(raw) !== null;
  }

  /** The range an address belongs to when it is internal (`loopback`, `private`, ...); null when public. */
  static internalRange(address: string): string | null {
    if (!ipaddr.isValid(address)) return 'invalid';
    const parsed = ipaddr.process(address);
    const range = parsed.range();
    // IPv4-compatible IPv6 (::a.b.c.d, deprecated) carries an IPv4 address, yet ipaddr.js calls it unicast.
    if (range === 'unicast' && parsed instanceof ipaddr.IPv6 && parsed.parts.slice(0, 6).every((part) => part === 0))
      return 'ipv4Compatible';
    return range === 'unicast' ? null : range;
  }

  /** Whether an untrusted destination named `host` may connect to `address`. */
  allows(host: string, address: string): boolean {
    if (this.hosts.has(bareHost(host))) return true;
    if (OutboundPolicy.internalRange(address) === null) return true;
    const parsed = ipaddr.process(address);
    return this.networks.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
  }

  /**
   * Request time: throws when `url` names an internal address literally (decimal, hex and mapped
   * forms are normalised by the URL parser first). Names are checked by `lookup` as they resolve.
   */
  checkLiteral(url: URL): void {
    const host = bareHost(url.hostname);
    if (net.isIP(host) && !this.allows(host, host)) throw new OutboundRefusedError(url.hostname);
  }

  /** A `lookup` that resolves as usual and refuses a name any of whose addresses is not allowed. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, options.all ? [] : '');
      if (addresses.length === 0 || addresses.some(({ address }) => !this.allows(hostname, address))) {
        return callback(new OutboundRefusedError(hostname), options.all ? [] : '');
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };

  /**
   * Write time: whether `url` points at an internal address this policy does not allow. A name is
   * resolved now; one that does not resolve (yet) is left to the check at request time.
   */
  async refusesUrl(url: string): Promise<boolean> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    return this.refusesHost(parsed.hostname);
  }

  /** Write time, for a destination given as a host (an SSH remote): as `refusesUrl`. */
  async refusesHost(hostname: string): Promise<boolean> {
    const host = bareHost(hostname);
    if (net.isIP(host)) return !this.allows(host, host);
    if (this.hosts.has(host)) return false;
    const lookup = dns.promises.lookup(host, { all: true }).catch(() => [] as LookupAddress[]);
    const timeout = new Promise<LookupAddress[]>((resolve) => setTimeout(resolve, WRITE_LOOKUP_TIMEOUT_MS, []).unref());
    const addresses = await Promise.race([lookup, timeout]);
    return addresses.some(({ address }) => !this.allows(host, address));
  }
}
