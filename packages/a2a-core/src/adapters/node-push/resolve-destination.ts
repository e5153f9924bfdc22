import { lookup } from "node:dns/promises";
import type { AllowedHosts } from "../../runtime/push/allowed-hosts.js";
import { judgeHostName, type PushDestinationOptions } from "../../runtime/push/destination-check.js";
import { forbiddenAddressReason, forbiddenAddressRule } from "../../runtime/push/forbidden-address.js";

/** One address a host name resolves to, as `node:dns` `lookup` gives it. */
export interface PushResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. Default: `node:dns` `lookup` with `all: true`. */
export type PushAddressLookup = (hostname: string) => Promise<readonly PushResolvedAddress[]>;

/** The Node entry's SSRF guard settings: the allowed hosts, and (for tests or a DNS cache) the resolver. */
export interface NodePushDestinationOptions extends PushDestinationOptions {
  /** Resolves host names (a DNS cache, a resolver for tests). Default: `node:dns` `lookup`, every address. */
  lookup?: PushAddressLookup;
}

export const systemLookup: PushAddressLookup = (hostname) => lookup(hostname, { all: true, order: "verbatim" });

/** A destination the guard refused when connecting: an attempt that failed (and is retried), never sent. */
export class PushDestinationRefusedError extends Error {
  override readonly name = "PushDestinationRefusedError";
  readonly code = "ERR_PUSH_DESTINATION_REFUSED";
}

/**
 * What a host name stands for, judged: its addresses when every one may be used, else why not. `reason`
 * is for the client and names the rule only (never the address the name resolved to, nor the lookup's
 * error: the server must not resolve internal names for strangers); `detail` adds them, for the logs.
 */
export type ResolvedVerdict =
  | { kind: "refused"; reason: string; detail: string }
  | { kind: "allowed"; addresses: readonly PushResolvedAddress[] };

/**
 * Resolves `host` and judges every address it has: one forbidden address refuses the name (a receiver
 * cannot choose which of its addresses a connection uses). A name the operator allows, or that does not
 * need resolving, is judged as written.
 */
export async function resolveAndJudge(
  host: string,
  allowed: AllowedHosts,
  resolve: PushAddressLookup,
): Promise<ResolvedVerdict> {
  const byName = judgeHostName(host, allowed);
  if (byName.kind === "refused") return { ...byName, detail: byName.reason };
  let addresses: readonly PushResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = `${host} does not resolve`;
    return { kind: "refused", reason, detail: `${reason} (${typeof code === "string" ? code : "lookup failed"})` };
  }
  if (addresses.length === 0)
    return { kind: "refused", reason: `${host} does not resolve`, detail: `${host} does not resolve` };
  if (byName.kind === "allowed") return { kind: "allowed", addresses };
  for (const { address } of addresses) {
    if (allowed.allowsAddress(address)) continue;
    const rule = forbiddenAddressRule(address);
    if (rule === undefined) continue;
    return {
      kind: "refused",
      reason: `${host} resolves to ${rule}`,
      detail: `${host} resolves to ${address}, ${forbiddenAddressReason(address)}`,
    };
  }
  return { kind: "allowed", addresses };
}
