import type { PushConfigStore } from "../../ports/push-configs.js";
import type { PushDeliveryQueue } from "../../ports/push-deliveries.js";

/**
 * Why a push destination is refused (`"…"`, shown to the client in the -32602), or `undefined` when it
 * may be used. Checked when a config is created, after its task was found; a connection-time check (DNS
 * rebinding) belongs to the `fetch` the dispatcher sends with. The reason names the rule that refused the
 * URL, never what a host name resolved to or why its lookup failed (the client must not learn them).
 */
export type PushDestinationCheck = (url: URL) => Promise<string | undefined>;

/** Push notifications as the methods and the dispatcher see them: present only when push is on. */
export interface PushSide {
  configs: PushConfigStore;
  deliveries: PushDeliveryQueue;
  checkDestination: PushDestinationCheck;
  /** Configs one task may have (`A2A_LIMITS.pushConfigsPerTask` unless the embedder chose another). */
  maxConfigsPerTask: number;
}
