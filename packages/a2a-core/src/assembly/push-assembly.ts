import { consoleLogger, type Logger } from "../ports/logger.js";
import type { PushDeliveryQueue } from "../ports/push-deliveries.js";
import { A2A_LIMITS } from "../protocol/limits.js";
import { pushDestinationCheck } from "../runtime/push/destination-check.js";
import { PushDispatcher } from "../runtime/push/dispatcher.js";
import type { PushSide } from "../runtime/push/push-side.js";
import { type PushMeasurements, PushTelemetry } from "../telemetry/push-telemetry.js";
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
    checkDestination: push.checkDestination ?? pushDestinationCheck({ allowedHosts: push.allowedHosts ?? [] }),
    maxConfigsPerTask: push.maxConfigsPerTask ?? A2A_LIMITS.pushConfigsPerTask,
  };
  warnUnguardedOnNode(push, context.logger);
  if (push.dispatch === false) return { side, dispatcher: undefined };
  return { side, dispatcher: dispatcherOf(stores.deliveries, push, context) };
}

/**
 * On Node, the root entry's defaults leave what Node could check unchecked (a name's addresses, each
 * connection's): say so once, with the fix, when push would send (it has signing secrets).
 */
function warnUnguardedOnNode(push: Partial<A2APushOptions>, logger: Logger): void {
  const onNode = typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node;
  if (onNode !== "string" || !push.signingSecrets || (push.checkDestination && push.fetch)) return;
  logger.warn(
    {},
    "push: destination names are not resolved and connections are not checked (SSRF); on Node, import createA2AHandler from @a2a-partner/a2a-core/node, or pass push.checkDestination and push.fetch",
  );
}

function dispatcherOf(
  deliveries: PushDeliveryQueue,
  push: Partial<A2APushOptions>,
  context: { logger: Logger; now: () => Date; instanceId: string; telemetry?: PushMeasurements | undefined },
): PushDispatcher {
  const signingSecrets = push.signingSecrets;
  return new PushDispatcher({
    deliveries,
    owner: context.instanceId,
    // The global is looked up per call, so one replaced later (an instrumented fetch) is used.
    send: push.fetch ?? ((input, init) => fetch(input, init)),
    signingSecrets: signingSecrets && ((workspaceId) => signingSecrets(workspaceId)),
    logger: context.logger,
    telemetry: context.telemetry ?? new PushTelemetry(),
    now: context.now,
    attemptTimeoutMs: push.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    horizonMs: push.horizonMs ?? DEFAULT_HORIZON_MS,
    ...(push.maxRetryWaitMs === undefined ? {} : { maxRetryWaitMs: push.maxRetryWaitMs }),
  });
}

/** Options of `createPushDispatcher`. */
export interface PushDispatcherSetup {
  /** The queue to deliver: the same database as the instances that write the events. */
  deliveries: PushDeliveryQueue;
  /** Signing, sending, timeouts and horizon, as `A2APushOptions` (its other fields are the handler's). */
  push: Pick<
    A2APushOptions,
    "signingSecrets" | "fetch" | "allowedHosts" | "horizonMs" | "maxRetryWaitMs" | "attemptTimeoutMs"
  >;
  /**
   * The owner of this dispatcher's claims: unique among the dispatchers running at once (a handler's
   * `instanceId` only when that handler runs none, `push: { dispatch: false }`). Default a random one.
   */
  instanceId?: string;
  /** Where its log lines go (failed attempts at info, give-ups at warn). Default `consoleLogger`. */
  logger?: Logger;
  /**
   * Where its measurements go. Default: OpenTelemetry metrics through `@opentelemetry/api`, as a handler's
   * dispatcher records them (in a worker thread that has no SDK of its own, hand them to one that does:
   * `new PushTelemetry()` there records them).
   */
  telemetry?: PushMeasurements;
}

/** A push dispatcher of its own (`createPushDispatcher`). */
export interface StandalonePushDispatcher {
  /** Starts delivering (claims due deliveries, is woken by the queue's `watch`). */
  start(): void;
  /**
   * Stops claiming, lets attempts under way finish for up to `graceMs`, gives back at once what it holds
   * unsent, and leaves the rest to their leases.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * A dispatcher that runs apart from any handler: in a worker thread or a process of its own, beside
 * handlers made with `push: { dispatch: false }`, so delivering notifications does not share the event
 * loop that answers requests. It delivers exactly what a handler's own dispatcher would.
 */
export function createPushDispatcher(setup: PushDispatcherSetup): StandalonePushDispatcher {
  const dispatcher = dispatcherOf(setup.deliveries, setup.push, {
    logger: setup.logger ?? consoleLogger,
    now: () => new Date(),
    instanceId: setup.instanceId ?? `push-${crypto.randomUUID()}`,
    telemetry: setup.telemetry,
  });
  return { start: () => dispatcher.start(), close: (graceMs) => dispatcher.close(graceMs) };
}
