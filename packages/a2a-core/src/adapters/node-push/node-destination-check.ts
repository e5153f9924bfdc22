import { AllowedHosts } from "../../runtime/push/allowed-hosts.js";
import { judgeDestination } from "../../runtime/push/destination-check.js";
import type { PushDestinationCheck } from "../../runtime/push/push-side.js";
import { type NodePushDestinationOptions, resolveAndJudge, systemLookup } from "./resolve-destination.js";

/**
 * The SSRF guard at config creation on Node: `pushDestinationCheck`'s rules, and a host name is resolved
 * (`node:dns` `lookup`, every address) and refused if any address is forbidden or if it does not resolve.
 * Pass it as `push.checkDestination`, with `guardedPushFetch` as `push.fetch` to judge every connection
 * again (a name may resolve elsewhere by then).
 */
export function nodePushDestinationCheck(options: NodePushDestinationOptions = {}): PushDestinationCheck {
  const allowed = AllowedHosts.parse(options.allowedHosts);
  const resolve = options.lookup ?? systemLookup;
  return async (url) => {
    const verdict = judgeDestination(url, allowed);
    if (verdict.kind !== "name") return verdict.kind === "refused" ? verdict.reason : undefined;
    const resolved = await resolveAndJudge(verdict.host, allowed, resolve);
    return resolved.kind === "refused" ? resolved.reason : undefined;
  };
}
