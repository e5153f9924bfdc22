import ipaddr from "ipaddr.js";
import { isIpLiteral, stripBrackets } from "./forbidden-address.js";

/** An allow-list entry that cannot be read: which one, and why. A `TypeError`, as it always was. */
export class AllowedHostsError extends TypeError {
  override readonly name = "AllowedHostsError";

  constructor(
    /** The entry as given (trimmed). */
    readonly entry: string,
    /** Why it cannot be read (`a URL: give its host alone`). */
    readonly reason: string,
  ) {
    super(`allowedHosts: "${entry}" is ${reason}`);
  }
}

/**
 * Reads the push allow-list: host names (exact, case-insensitive), IP addresses and CIDR blocks, given as
 * one comma-separated string (`hooks.internal, 10.1.2.3, 10.8.0.0/16, fd00::/8`, as an environment
 * variable holds it) or entry by entry. Returns the entries canonical: trimmed, lower case, IPv6 without
 * brackets, a name without its trailing dot. A list that is blank altogether is empty.
 *
 * Throws an `AllowedHostsError` naming the first entry it cannot read: an entry the guard misread would
 * silently allow nothing, or something else. That includes a blank entry among others, a URL, a port, a
 * wildcard, a prefix too long for its address, and a CIDR block with host bits set (`127.0.0.2/8`: the
 * block is 127.0.0.0/8, the address 127.0.0.2; either may have been meant, so neither is guessed).
 */
export function parseAllowedHosts(list: string | readonly string[] | undefined): string[] {
  const entries = (typeof list === "string" ? list.split(",") : (list ?? [])).map((entry) => entry.trim());
  if (entries.every((entry) => entry === "")) return [];
  return entries.map((entry) => {
    const reason = entry === "" ? "an empty entry (two commas in a row?)" : whyNotAnEntry(entry);
    if (reason) throw new AllowedHostsError(entry, reason);
    return canonical(entry);
  });
}

/** A host name as compared: lower case, without the trailing dot of a fully qualified name. */
export function normalizeHostName(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

/** Labels of letters, digits, `-` and `_`, dot-separated, an optional trailing dot. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

function whyNotAnEntry(entry: string): string | undefined {
  if (entry.includes("://")) return "a URL: give its host alone";
  if (entry.includes("/")) return whyNotABlock(entry);
  if (isIpLiteral(entry)) return undefined;
  if (entry.includes("*")) return "a wildcard: list each host";
  if (/:\d+$/.test(entry)) return "a host with a port: give the host alone (every port is allowed)";
  return HOST_NAME.test(entry) ? undefined : "neither a host name nor an IP address";
}

function whyNotABlock(entry: string): string | undefined {
  const [written = "", prefix = "", ...rest] = entry.split("/");
  const address = stripBrackets(written);
  if (rest.length > 0 || !isIpLiteral(address)) return "not a CIDR block: the part before / is not an IP address";
  const max = ipaddr.parse(address).kind() === "ipv4" ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `not a CIDR block: the prefix must be 0 to ${max}`;
  const block = ipaddr.parseCIDR(`${address}/${prefix}`);
  const network =
    block[0].kind() === "ipv4"
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefix}`);
  if (network.toString() === block[0].toString()) return undefined;
  return (
    `a CIDR block with host bits set: write ${network.toString()}/${prefix} for the block, ` +
    `or ${block[0].toString()} for the address alone`
  );
}

function canonical(entry: string): string {
  if (entry.includes("/")) {
    const [address = "", prefix] = entry.split("/");
    return `${stripBrackets(address).toLowerCase()}/${prefix}`;
  }
  return isIpLiteral(entry) ? stripBrackets(entry).toLowerCase() : normalizeHostName(entry);
}
