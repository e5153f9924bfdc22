import type { LookupAddress, LookupOptions } from "node:dns";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { AllowedHosts } from "../../runtime/push/allowed-hosts.js";
import { judgeAddress } from "../../runtime/push/destination-check.js";
import { isIpLiteral, stripBrackets } from "../../runtime/push/forbidden-address.js";
import { PUSH_POST } from "../../runtime/push/push-post.js";
import {
  type NodePushDestinationOptions,
  type PushAddressLookup,
  PushDestinationRefusedError,
  resolveAndJudge,
  systemLookup,
} from "./resolve-destination.js";
import { undiciPushPost } from "./undici-push-post.js";

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `fetch` for `push.fetch` on Node that judges the address of every connection it opens (an undici
 * `Agent` whose `connect` checks a literal IP and whose DNS `lookup` refuses a name with any forbidden
 * address), so a name that passed the check at creation and resolves to 169.254.169.254 or 127.0.0.1
 * later (DNS rebinding) is not connected to. Redirects are never followed. A refused connection is a
 * failed attempt (`network`), retried and logged like any other. The dispatcher sends its deliveries
 * through the same `Agent` with undici's `request` (carried under `PUSH_POST`), not through this `fetch`.
 */
export function guardedPushFetch(options: NodePushDestinationOptions = {}): typeof fetch {
  const allowed = AllowedHosts.parse(options.allowedHosts);
  const connector = buildConnector({ lookup: guardedLookup(allowed, options.lookup ?? systemLookup) });
  const agent = new Agent({
    connect(connectOptions, callback) {
      const host = stripBrackets(connectOptions.hostname);
      if (isIpLiteral(host)) {
        // A literal IP is connected to without a lookup: judged here.
        const verdict = judgeAddress(host, allowed);
        if (verdict.kind === "refused") {
          callback(new PushDestinationRefusedError(`push destination refused: ${verdict.reason}`), null);
          return;
        }
      }
      connector(connectOptions, callback);
    },
  });
  const guarded = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent,
      redirect: "manual",
    });
  Object.defineProperty(guarded, PUSH_POST, { value: undiciPushPost(agent) });
  return guarded as unknown as typeof fetch;
}

/** A `net` lookup that resolves through `resolve` and refuses a name with any forbidden address. */
function guardedLookup(allowed: AllowedHosts, resolve: PushAddressLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveAndJudge(hostname, allowed, resolve).then(
      (verdict) => {
        if (verdict.kind === "refused") {
          callback(new PushDestinationRefusedError(`push destination refused: ${verdict.detail}`), "");
          return;
        }
        const addresses = verdict.addresses.filter(
          (entry) => !options.family || options.family === entry.family || options.family === `IPv${entry.family}`,
        );
        const usable = addresses.length > 0 ? addresses : verdict.addresses;
        if (options.all)
          callback(
            null,
            usable.map(({ address, family }) => ({ address, family })),
          );
        else callback(null, usable[0]?.address ?? "", usable[0]?.family);
      },
      (error: Error) => callback(error, ""),
    );
  };
}
