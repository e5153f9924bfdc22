import type { A2APushOptions } from "@a2a-partner/a2a-core";
import { guardedPushFetch, nodePushDestinationCheck } from "@a2a-partner/a2a-core/node";
import type { PushSettings } from "@a2a-partner/a2a-core/node-runtime";
import { type CacheInvalidation, type Queryable, workspaceSigningSecrets } from "@a2a-partner/postgres-store";

/**
 * `createA2AHandler({ push })` for the reference server: `false` with PUSH_NOTIFICATIONS=off (the push
 * methods answer -32003); otherwise the workspaces' signing secrets, the horizon and the longest retry wait, and the SSRF guard with
 * the operator's PUSH_ALLOWED_HOSTS at creation and at every connection (DNS rebinding). `dispatch: false`
 * when the deliveries go out from the dispatch thread instead (app/push-dispatch.ts).
 */
export function pushHandlerOptions(
  settings: PushSettings,
  db: Queryable,
  invalidation: CacheInvalidation | undefined,
  { dispatch = true }: { dispatch?: boolean } = {},
): false | A2APushOptions {
  if (!settings.enabled) return false;
  return {
    dispatch,
    signingSecrets: workspaceSigningSecrets(db, invalidation),
    horizonMs: settings.horizonMs,
    maxRetryWaitMs: settings.maxRetryWaitMs,
    checkDestination: nodePushDestinationCheck({ allowedHosts: settings.allowedHosts }),
    fetch: guardedPushFetch({ allowedHosts: settings.allowedHosts }),
  };
}
