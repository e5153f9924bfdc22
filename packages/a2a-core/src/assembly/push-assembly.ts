import type { Logger } from "../ports/logger.js";
import { A2A_LIMITS } from "../protocol/limits.js";
import { pushDestinationCheck } from "../runtime/push/destination-check.js";
import { PushDispatcher } from "../runtime/push/dispatcher.js";
import type { PushSide } from "../runtime/push/push-side.js";
import { PushTelemetry } from "../telemetry/push-telemetry.js";
import type { A2AHandlerOptions } from "./handler-options.js";
import type { A2APushOptions } from "./push-options.js";

/** What an attempt waits for a receiver's answer by default; the issue asks for 10–30 s. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
/** How long a delivery is retried after its event became durable. */
export const DEFAULT_HORIZON_MS = 24 * 60 * 60 * 1_000;

/** Push notifications as the handler runs them: the methods' side, and this instance's dispatcher. */
export interface AssembledPush {
  side: PushSide;
  dispatcher: PushDispatcher | undefined;
}

/**
 * Push is on when `stores.push` is given and `push` is not `false`. Without `push.signingSecrets` nothing
 * can be signed: deliveries wait (retried, then given up past the horizon), never sent unsigned, and the
 * first one's workspace is logged.
 */
export function assemblePush(
  options: A2AHandlerOptions,
  context: { logger: Logger; now: () => Date; instanceId: string },
): AssembledPush | undefined {
  const stores = options.stores.push;
  if (!stores || options.push === false) return undefined;
  const push: Partial<A2APushOptions> = options.push ?? {};
  const side: PushSide = {
    configs: stores.configs,
    deliveries: stores.deliveries,
    checkDestination: push.checkDestination ?? pushDestinationCheck(),
    maxConfigsPerTask: push.maxConfigsPerTask ?? A2A_LIMITS.pushConfigsPerTask,
  };
  if (push.dispatch === false) return { side, dispatcher: undefined };
  const signingSecrets = push.signingSecrets;
  const dispatcher = new PushDispatcher({
    deliveries: stores.deliveries,
    owner: context.instanceId,
    // The global is looked up per call, so one replaced later (an instrumented fetch) is used.
    send: push.fetch ?? ((input, init) => fetch(input, init)),
    signingSecrets: signingSecrets && ((workspaceId) => signingSecrets(workspaceId)),
    logger: context.logger,
    telemetry: new PushTelemetry(),
    now: context.now,
    attemptTimeoutMs: push.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    horizonMs: push.horizonMs ?? DEFAULT_HORIZON_MS,
    ...(push.maxRetryWaitMs === undefined ? {} : { maxRetryWaitMs: push.maxRetryWaitMs }),
  });
  return { side, dispatcher };
}
