import { lookup } from "node:dns/promises";
import type { AllowedHosts } from "../../runtime/push/allowed-hosts.js";
import { judgeAddress, judgeHostName, type PushDestinationOptions } from "../../runtime/push/destination-check.js";

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

/** What a host name stands for, judged: its addresses when every one may be used, else why not. */
export type ResolvedVerdict =
  | { kind: "refused"; reason: string }
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
  if (byName.kind === "refused") return byName;
  let addresses: readonly PushResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      kind: "refused",
      reason: `${host} does not resolve (${typeof code === "string" ? code : "lookup failed"})`,
    };
  }
  if (addresses.length === 0) return { kind: "refused", reason: `${host} does not resolve` };
  if (byName.kind === "allowed") return { kind: "allowed", addresses };
  for (const { address } of addresses) {
    const verdict = judgeAddress(address, allowed, host);
    if (verdict.kind === "refused") return verdict;
  }
  return { kind: "allowed", addresses };
}
