import { AllowedHosts } from "./allowed-hosts.js";
import { forbiddenAddressReason, isIpLiteral, stripBrackets } from "./forbidden-address.js";
import { normalizeHostName } from "./parse-allowed-hosts.js";
import type { PushDestinationCheck } from "./push-side.js";

/** The SSRF guard's settings. */
export interface PushDestinationOptions {
  /**
   * Host names, IP addresses and CIDR blocks allowed although they would be refused (`hooks.internal`,
   * `10.1.2.3`, `10.8.0.0/16`, `::1`), read by `parseAllowedHosts`: an entry it cannot read (a CIDR block
   * with host bits set among them) throws its `AllowedHostsError` when the check is made.
   */
  allowedHosts?: readonly string[];
}

/** Names that lead to this machine or to a cloud's metadata service whatever DNS says. */
const FORBIDDEN_NAMES = new Set(["localhost", "metadata.google.internal"]);

/** What the URL alone says: refused (why), allowed, or a host name only resolving can judge. */
export type DestinationVerdict =
  | { kind: "refused"; reason: string }
  | { kind: "allowed" }
  | { kind: "name"; host: string };

/** Judges a push URL by its scheme and host as written (no DNS): the part of the guard every runtime has. */
export function judgeDestination(url: URL, allowed: AllowedHosts): DestinationVerdict {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      kind: "refused",
      reason: `only http: and https: URLs can receive push notifications, not ${url.protocol}`,
    };
  }
  if (url.username !== "" || url.password !== "") {
    // fetch refuses such a URL, and credentials belong in the config's `authentication`.
    return { kind: "refused", reason: "the URL carries credentials; use the config's authentication instead" };
  }
  const host = stripBrackets(url.hostname);
  if (host === "") return { kind: "refused", reason: "the URL has no host" };
  return isIpLiteral(host) ? judgeAddress(host, allowed) : judgeHostName(host, allowed);
}

/** Judges a host name as written: allowed by the operator, refused by name, or left to its addresses. */
export function judgeHostName(host: string, allowed: AllowedHosts): DestinationVerdict {
  const name = normalizeHostName(host);
  if (allowed.allowsName(name)) return { kind: "allowed" };
  if (FORBIDDEN_NAMES.has(name) || name.endsWith(".localhost")) {
    return { kind: "refused", reason: `${name} names this machine or a metadata service` };
  }
  return { kind: "name", host: name };
}

/** Judges one IP address written as the host. */
export function judgeAddress(address: string, allowed: AllowedHosts): DestinationVerdict {
  if (allowed.allowsAddress(address)) return { kind: "allowed" };
  const reason = forbiddenAddressReason(address);
  return reason === undefined ? { kind: "allowed" } : { kind: "refused", reason: `${address} is ${reason}` };
}

/**
 * The SSRF guard for any runtime (the handler's default `push.checkDestination`): only `http:` and
 * `https:`; no loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, unspecified,
 * broadcast or reserved IP address, in IPv4 or any IPv6 form of one; not `localhost`, `*.localhost` or
 * `metadata.google.internal`; except what `allowedHosts` lists. A host name is judged as written: what it
 * resolves to is judged by the Node entry's `nodePushDestinationCheck` and `guardedPushFetch`.
 */
export function pushDestinationCheck(options: PushDestinationOptions = {}): PushDestinationCheck {
  const allowed = AllowedHosts.parse(options.allowedHosts);
  return async (url) => {
    const verdict = judgeDestination(url, allowed);
    return verdict.kind === "refused" ? verdict.reason : undefined;
  };
}
