import { type A2AHandler, createA2AHandler } from "@a2a-partner/a2a-core";
import { handlerLimits } from "@a2a-partner/a2a-core/node-runtime";
import type { Database } from "@a2a-partner/postgres-store";
import type { Logger } from "pino";
import { partnerAuthenticator } from "../auth/partner-auth.ts";
import type { ServerConfig } from "../config.ts";
import { pushHandlerOptions } from "../push/push-handler-options.ts";
import { usesDispatchThread } from "./push-dispatch.ts";
import type { ServerStores } from "./stores.ts";

/**
 * The A2A handler over the server's stores: partner tokens for auth, the operator's limits (0 turns
 * each off), push as configured (delivered here only when no dispatch thread does it).
 */
export function createServerHandler(
  db: Database,
  { stores, invalidation, executor }: ServerStores,
  config: ServerConfig,
  instanceId: string,
  logger: Logger,
): A2AHandler {
  return createA2AHandler({
    stores,
    instanceId,
    executor,
    authenticate: partnerAuthenticator(db, invalidation, { logger: logger.child({ component: "auth" }) }),
    logger: logger.child({ component: "a2a" }),
    leaseMs: config.taskLeaseMs,
    ...handlerLimits(config),
    push: pushHandlerOptions(config.push, db, invalidation, { dispatch: !usesDispatchThread(config) }),
    // The contract (docs/contract.md): tasks are started and followed over streams only.
    methods: { sendMessage: false, continueTask: false },
  });
}
