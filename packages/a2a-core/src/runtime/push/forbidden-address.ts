import ipaddr from "ipaddr.js";

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** What an IPv4 range is called in a refusal; `unicast` (a public address) is the only one allowed. */
const IPV4_RANGE_NAMES: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address (cloud metadata lives there)",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address",
  reserved: "a reserved address",
  as112: "a reserved address",
  amt: "a reserved address",
};

/** IPv6 ranges named in a refusal; anything else outside the global unicast 2000::/3 is reserved too. */
const IPV6_RANGE_NAMES: Record<string, string> = {
  unspecified: "an unspecified address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  loopback: "a loopback address",
  uniqueLocal: "a private (unique local) address",
  deprecatedSiteLocal: "a site-local address",
};

/** 2000::/3: the only IPv6 block assigned for global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3") as [IPv6, number];
/** The well-known NAT64 prefix; its last 32 bits are the IPv4 destination (RFC 6052). */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96") as [IPv6, number];

/**
 * Why a push receiver may not be at this address (`"a loopback address"`), or `undefined` for a public
 * one. IPv6 forms that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4) are judged by
 * the address they carry, so `::ffff:127.0.0.1` is as loopback as `127.0.0.1`. Throws on a string that is
 * not an IP address.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const parsed = ipaddr.parse(stripBrackets(address));
  if (parsed.kind() === "ipv4") return ipv4Reason(parsed as IPv4);
  const embedded = embeddedIpv4(parsed as IPv6);
  if (!embedded) return ipv6Reason(parsed as IPv6);
  const reason = ipv4Reason(embedded);
  return reason && `${reason} (${embedded.toString()} in an IPv6 form)`;
}

/**
 * The rule alone (`"a loopback address"`), naming no address: what a client is told about an address a
 * host name resolved to, which it must not learn through the server.
 */
export function forbiddenAddressRule(address: string): string | undefined {
  const parsed = ipaddr.parse(stripBrackets(address));
  if (parsed.kind() === "ipv4") return ipv4Reason(parsed as IPv4);
  const embedded = embeddedIpv4(parsed as IPv6);
  return embedded ? ipv4Reason(embedded) : ipv6Reason(parsed as IPv6);
}

/** Whether `text` is an IP address in a standard notation (dotted quad, or IPv6, bracketed or not). */
export function isIpLiteral(text: string): boolean {
  const bare = stripBrackets(text);
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
}

/** `[::1]` (a URL's hostname) → `::1`. */
export function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function ipv4Reason(address: IPv4): string | undefined {
  const range = address.range();
  return range === "unicast" ? undefined : (IPV4_RANGE_NAMES[range] ?? "a reserved address");
}

/** An IPv6 address that carries no IPv4 one. */
function ipv6Reason(address: IPv6): string | undefined {
  const range = address.range();
  const named = IPV6_RANGE_NAMES[range];
  if (named) return named;
  if (range !== "unicast" || !address.match(GLOBAL_UNICAST_V6)) return "a reserved address";
  return undefined;
}

/**
 * The IPv4 address an IPv6 one stands for, where it stands for one: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d` (deprecated, still routed by some stacks), IPv4-translated
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, and 6to4 `2002:aabb:ccdd::`. (The local-use NAT64
 * block `64:ff9b:1::/48` places its IPv4 bits by the operator's choice of prefix, so it stays refused as
 * reserved.)
 */
function embeddedIpv4(address: IPv6): IPv4 | undefined {
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = address.parts;
  const range = address.range();
  if (range === "ipv4Mapped" || range === "rfc6145" || address.match(NAT64_WELL_KNOWN)) return ipv4Of(p6, p7);
  if (range === "6to4") return ipv4Of(p1, p2);
  // IPv4-compatible: the first 96 bits zero; `::` and `::1` are the unspecified and loopback addresses.
  if ((p0 | p1 | p2 | p3 | p4 | p5) === 0 && (p6 !== 0 || p7 > 1)) return ipv4Of(p6, p7);
  return undefined;
}

/** The IPv4 address held by two 16-bit IPv6 parts. */
function ipv4Of(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
