import { authenticate, executor, secretsOf } from "../context.ts";
import { stores } from "../context-handler.ts";

// #region snippet
import { createA2AHandler } from "@a2a-partner/a2a-core/node";

const handler = createA2AHandler({
  stores, // with stores.push
  executor,
  authenticate,
  push: {
    // The workspace's Standard Webhooks secrets (`whsec_…`), newest first; called per delivery.
    signingSecrets: async (workspaceId) => secretsOf(workspaceId),
    // Receivers on your own network, if any: let through by the check and the sender.
    allowedHosts: ["hooks.internal", "10.8.0.0/16"],
  },
});

// #endregion snippet

export { handler };
