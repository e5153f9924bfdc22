import ipaddr from "ipaddr.js";
import { isIpLiteral, stripBrackets } from "./forbidden-address.js";
import { normalizeHostName, parseAllowedHosts } from "./parse-allowed-hosts.js";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * The destinations an operator allows although the SSRF guard would refuse them (a receiver on the
 * private network, a test receiver on 127.0.0.1): host names (exact, case-insensitive), IP addresses and
 * CIDR blocks, as in the reference server's `PUSH_ALLOWED_HOSTS=hooks.internal,10.1.2.3,10.8.0.0/16`.
 * An allowed name is used whatever it resolves to; an allowed address or block lets that address through
 * whatever name led to it.
 */
export class AllowedHosts {
  private constructor(
    private readonly names: ReadonlySet<string>,
    private readonly blocks: readonly Cidr[],
  ) {}

  static readonly none = new AllowedHosts(new Set(), []);

  /** Read by `parseAllowedHosts`, whose `AllowedHostsError` (a `TypeError`) names an entry it cannot read. */
  static parse(entries: readonly string[] | undefined): AllowedHosts {
    const names = new Set<string>();
    const blocks: Cidr[] = [];
    for (const entry of parseAllowedHosts(entries)) {
      if (entry.includes("/")) blocks.push(parseBlock(entry));
      else if (isIpLiteral(entry)) blocks.push(singleAddress(entry));
      else names.add(entry);
    }
    return names.size === 0 && blocks.length === 0 ? AllowedHosts.none : new AllowedHosts(names, blocks);
  }

  /** Whether the URL's host name is allowed as a name (not an address). */
  allowsName(host: string): boolean {
    return this.names.has(normalizeHostName(host));
  }

  /** Whether this IP address falls in an allowed address or block (IPv4-mapped IPv6 counts as its IPv4). */
  allowsAddress(address: string): boolean {
    if (this.blocks.length === 0) return false;
    const parsed = ipaddr.process(stripBrackets(address));
    return this.blocks.some(([base, bits]) => parsed.kind() === base.kind() && parsed.match(base, bits));
  }
}

/** A block `parseAllowedHosts` read (valid, no host bits set). */
function parseBlock(entry: string): Cidr {
  const [base, prefix] = ipaddr.parseCIDR(entry);
  return normalizedBlock(base, prefix);
}

function singleAddress(entry: string): Cidr {
  const parsed = ipaddr.parse(stripBrackets(entry));
  return normalizedBlock(parsed, parsed.kind() === "ipv4" ? 32 : 128);
}

/** `::ffff:10.0.0.0/104` is kept as `10.0.0.0/8`, so it matches the addresses `process` turns into IPv4. */
function normalizedBlock(base: ipaddr.IPv4 | ipaddr.IPv6, bits: number): Cidr {
  if (base.kind() === "ipv6" && (base as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(base as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [base, bits];
}
