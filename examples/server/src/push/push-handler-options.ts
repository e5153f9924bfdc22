import type { A2APushOptions } from "@a2a-partner/a2a-core";
import type { CacheInvalidation, Queryable } from "@a2a-partner/postgres-store";
import type { PushSettings } from "./push-settings.ts";
import { workspaceSigningSecrets } from "./workspace-signing-secrets.ts";

// MERGE(push-dispatch): the Node SSRF guard comes from that branch. Once it is merged, import
//   import { guardedPushFetch, nodePushDestinationCheck } from "@a2a-partner/a2a-core/node";
// and uncomment the two lines below. Until then the core's default check (literal IPs and names) applies
// and PUSH_ALLOWED_HOSTS is read and validated but allows nothing more.

/**
 * `createA2AHandler({ push })` for the reference server: `false` with PUSH_NOTIFICATIONS=off (the push
 * methods answer -32003); otherwise the workspaces' signing secrets, the horizon, and the SSRF guard with
 * the operator's PUSH_ALLOWED_HOSTS at creation and at every connection (DNS rebinding).
 */
export function pushHandlerOptions(
  settings: PushSettings,
  db: Queryable,
  invalidation: CacheInvalidation | undefined,
): false | A2APushOptions {
  if (!settings.enabled) return false;
  return {
    signingSecrets: workspaceSigningSecrets(db, invalidation),
    horizonMs: settings.horizonMs,
    // checkDestination: nodePushDestinationCheck({ allowedHosts: settings.allowedHosts }),
    // fetch: guardedPushFetch({ allowedHosts: settings.allowedHosts }),
  };
}
