import { createA2AHandler } from "@a2a-partner/a2a-core";
import { guardedPushFetch } from "@a2a-partner/a2a-core/node";
import { createPostgresStores, openDatabase } from "@a2a-partner/postgres-store";
import type { Logger } from "@a2a-partner/a2a-core";
import { authenticate, executor, secretsOf } from "../context.ts";

const db = await openDatabase({ url: process.env.DATABASE_URL });
const stores = createPostgresStores(db);
const instanceId = `instance-${crypto.randomUUID()}`;
const logger: Logger = { info() {}, warn: console.warn, error: console.error };
const push = { signingSecrets: secretsOf, fetch: guardedPushFetch() };

// #region snippet
// The handler's thread.
import { PushDispatchThread } from "@a2a-partner/postgres-store/dispatch-thread";

const handler = createA2AHandler({ stores, instanceId, push: { ...push, dispatch: false }, executor, authenticate });
const thread = new PushDispatchThread({
  module: new URL("./push-worker.ts", import.meta.url),
  data: { url: process.env.DATABASE_URL },
  instanceId, // the owner of the thread's claims: the handler runs no dispatcher
  deliveries: stores.push.deliveries,
  logger,
});
// …and at shutdown: await Promise.all([handler.close({ graceMs }), thread.close(graceMs)]);
// #endregion snippet

export { db, handler, stores, thread };
