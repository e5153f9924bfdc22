import type { PostgresPushStores } from "@a2a-partner/postgres-store";
import { PushDispatchThread } from "@a2a-partner/postgres-store/dispatch-thread";
import type { Logger } from "pino";
import type { ServerConfig } from "../config.ts";
import type { DispatchWorkerData } from "../push/dispatch-worker.ts";

/**
 * On PostgreSQL push deliveries go out from a thread of their own (PUSH_DISPATCH_THREAD, default on);
 * PGlite's database lives in this process, so there the handler's own dispatcher delivers.
 */
export function usesDispatchThread(config: ServerConfig): boolean {
  return Boolean(config.databaseUrl && config.push.enabled && config.push.dispatchThread);
}

/**
 * The dispatch thread (postgres-store's PushDispatchThread running push/dispatch-worker.ts), or undefined
 * when the handler delivers. Started once nothing else can fail: a thread would keep a failed start's
 * process alive.
 */
export function startPushDispatch(
  config: ServerConfig,
  instanceId: string,
  push: PostgresPushStores,
  cacheChangesChannel: string,
  logger: Logger,
): PushDispatchThread | undefined {
  if (!usesDispatchThread(config) || !config.databaseUrl) return undefined;
  const data: DispatchWorkerData = {
    databaseUrl: config.databaseUrl,
    listenUrl: config.databaseConnections.listenUrl,
    transactionPooler: config.databaseConnections.transactionPooler,
    logLevel: config.logLevel,
    logFormat: config.logFormat,
    cacheChangesChannel,
    push: config.push,
  };
  return new PushDispatchThread({
    module: new URL("../push/dispatch-worker.ts", import.meta.url),
    data,
    instanceId,
    deliveries: push.deliveries,
    logger: logger.child({ component: "push" }),
  });
}
