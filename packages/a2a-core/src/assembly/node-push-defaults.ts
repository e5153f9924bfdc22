import { guardedPushFetch } from "../adapters/node-push/guarded-push-fetch.js";
import { nodePushDestinationCheck } from "../adapters/node-push/node-destination-check.js";
import type { A2AHandler } from "../ports/handler.js";
import { createA2AHandler as createNeutralHandler } from "./create-handler.js";
import type { A2AHandlerOptions } from "./handler-options.js";
import {
  createPushDispatcher as createNeutralDispatcher,
  type PushDispatcherSetup,
  type StandalonePushDispatcher,
} from "./push-assembly.js";
import type { A2APushOptions } from "./push-options.js";

type GuardedFields = Pick<A2APushOptions, "checkDestination" | "fetch" | "allowedHosts">;

/**
 * Node's SSRF guard where the embedder named none: a destination's name resolved (every address judged)
 * when a config is made, and every connection's address judged again when a delivery is sent (DNS
 * rebinding), with `allowedHosts` let through. The reference server's guard, as defaults.
 */
function withNodeGuard<T extends GuardedFields>(push: T): T {
  const allowedHosts = push.allowedHosts ?? [];
  return {
    ...push,
    checkDestination: push.checkDestination ?? nodePushDestinationCheck({ allowedHosts }),
    fetch: push.fetch ?? guardedPushFetch({ allowedHosts }),
  };
}

/**
 * `createA2AHandler` for Node: the same handler, with push's destination check and sender defaulting to
 * Node's guard (`nodePushDestinationCheck` at creation, `guardedPushFetch` at every connection, both with
 * `push.allowedHosts`) instead of the runtime-neutral rules, which cannot resolve a name.
 */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  if (!options.stores.push || options.push === false) return createNeutralHandler(options);
  // Push on without options has no signingSecrets either: nothing is sent, but configs are still checked.
  const push = withNodeGuard(options.push ?? ({} as A2APushOptions));
  return createNeutralHandler({ ...options, push });
}

/** `createPushDispatcher` for Node: its sender defaults to `guardedPushFetch` (with `push.allowedHosts`). */
export function createPushDispatcher(setup: PushDispatcherSetup): StandalonePushDispatcher {
  return createNeutralDispatcher({ ...setup, push: withNodeGuard(setup.push) });
}
