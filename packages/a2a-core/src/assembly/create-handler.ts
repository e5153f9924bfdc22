import { toFetchHandler } from "../adapters/fetch.js";
import { attachBindingPipeline } from "../bindings/binding-access.js";
import { httpJsonBinding } from "../bindings/http-json/http-json-binding.js";
import { jsonRpcBinding } from "../bindings/jsonrpc/jsonrpc-binding.js";
import { routeRequest } from "../bindings/route-request.js";
import { sendMessage } from "../methods/send-message.js";
import type { A2AHandler } from "../ports/handler.js";
import { consoleLogger } from "../ports/logger.js";
import type { MethodName } from "../protocol/method-table.js";
import { A2ARuntime } from "../runtime/a2a-runtime.js";
import { Admission } from "../runtime/admission/admission.js";
import { TokenBucketRateLimiter } from "../runtime/admission/rate-limiter.js";
import { HandlerTelemetry } from "../telemetry/handler-telemetry.js";
import { type A2AHandlerOptions, type A2AMethodOptions, DEFAULTS } from "./handler-options.js";
import { assemblePush } from "./push-assembly.js";

/**
 * The framework-agnostic A2A request handler, assembled: the runtime (runner, hub, streams), admission
 * in front of it, the JSON-RPC and HTTP+JSON bindings over the methods (routed by path), and, with push on,
 * the instance's push dispatcher. Adapters: `toFetchHandler`, `toNodeHandler`.
 */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const logger = options.logger ?? consoleLogger;
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const instanceId = options.instanceId ?? `runner-${crypto.randomUUID()}`;
  const push = assemblePush(options, { logger, now, instanceId });
  // OpenTelemetry through its API only: a no-op unless the application registered an SDK.
  const telemetry = new HandlerTelemetry();
  const runtime = new A2ARuntime({
    stores: options.stores,
    executor: options.executor,
    logger,
    now,
    generateId: options.generateId ?? (() => crypto.randomUUID()),
    instanceId,
    leaseMs,
    recoveryIntervalMs: options.recoveryIntervalMs ?? Math.floor(leaseMs / 2),
    keepAliveMs: options.keepAliveMs ?? DEFAULTS.keepAliveMs,
    maxStreamBacklogBytes: options.maxStreamBacklogBytes ?? DEFAULTS.maxStreamBacklogBytes,
    maxOpenStreamsPerCaller: options.maxOpenStreamsPerCaller,
    terminalTaskCacheSize: options.terminalTaskCacheSize ?? DEFAULTS.terminalTaskCacheSize,
    terminalTaskCacheBytes: options.terminalTaskCacheBytes ?? DEFAULTS.terminalTaskCacheBytes,
    telemetry,
    push: push?.side,
    pushDispatcher: push?.dispatcher,
    ...methodSettings(options.methods, options.extendedAgentCard !== undefined),
    ...extendedCardSettings(options.extendedAgentCard),
  });
  const { stores } = options;
  const admission = new Admission({
    authenticate: options.authenticate,
    checkWorkspaceId: stores.checkWorkspaceId ? (workspaceId) => stores.checkWorkspaceId?.(workspaceId) : undefined,
    rateLimiter: rateLimiterOf(options.rateLimit),
    maxRequestsInFlight: options.maxRequestsInFlight,
    maxRequestsInFlightPerCaller: options.maxRequestsInFlightPerCaller,
    now,
    logger,
    telemetry,
    isClosing: () => runtime.closing,
  });
  const handler: A2AHandler = {
    handle: routeRequest(jsonRpcBinding(runtime, admission), httpJsonBinding(runtime, admission), options.basePath),
    fetch: (request) => fetchHandler(request),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    pushNotifications: push !== undefined,
    recoverOrphanedTasks: () => runtime.runner.recoverOrphans(),
    close: (closeOptions) => runtime.close(closeOptions?.graceMs ?? 10_000),
  };
  const fetchHandler = toFetchHandler(handler);
  // The gRPC entry serves the same pipeline on a port of its own (bindings/binding-access.ts).
  attachBindingPipeline(handler, runtime, admission);
  return handler;
}

/** The runtime's view of `methods`: which are turned off, and SendMessage's wait. */
function methodSettings(methods: A2AMethodOptions = {}, hasExtendedCard = false) {
  const turnedOff = new Set<MethodName>();
  if (methods.sendMessage === false) turnedOff.add(sendMessage.name);
  if (!hasExtendedCard) turnedOff.add("GetExtendedAgentCard");
  const waitMs = typeof methods.sendMessage === "object" ? methods.sendMessage.maxWaitMs : undefined;
  return {
    turnedOff,
    continueTasks: methods.continueTask !== false,
    messageIdsAreKeys: methods.deduplicateMessageIds !== false,
    ...(waitMs === undefined ? {} : { sendMessageWaitMs: waitMs }),
  };
}

/** GetExtendedAgentCard answers with the embedder's card, and is off (-32004) without one. */
function extendedCardSettings(card: A2AHandlerOptions["extendedAgentCard"]) {
  if (card === undefined) return {};
  return { extendedAgentCard: typeof card === "function" ? card : () => card };
}

function rateLimiterOf(rateLimit: A2AHandlerOptions["rateLimit"]) {
  if (rateLimit === undefined) return undefined;
  if ("take" in rateLimit) return rateLimit;
  return new TokenBucketRateLimiter({
    ratePerSecond: rateLimit.requestsPerSecond,
    ...(rateLimit.burst === undefined ? {} : { burst: rateLimit.burst }),
  });
}
