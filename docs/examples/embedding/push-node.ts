import { authenticate, executor, secretsOf, stores } from "../context.ts";

// #region snippet
import { createA2AHandler } from "@a2a-partner/a2a-core";
import { guardedPushFetch, nodePushDestinationCheck } from "@a2a-partner/a2a-core/node";

const allowedHosts = ["hooks.internal", "10.8.0.0/16"]; // receivers on your own network, if any
const handler = createA2AHandler({
  stores, // with stores.push
  executor,
  authenticate,
  push: {
    // The workspace's Standard Webhooks secrets (`whsec_…`), newest first; called per delivery.
    signingSecrets: async (workspaceId) => secretsOf(workspaceId),
    checkDestination: nodePushDestinationCheck({ allowedHosts }), // at creation: names resolved
    fetch: guardedPushFetch({ allowedHosts }), // at every connection: no DNS rebinding, no redirects
  },
});

// #endregion snippet

export { handler };
