// The dispatch thread's module (push-dispatch-thread.ts starts it): what it takes as given.
import type { Logger } from "@a2a-partner/a2a-core";
import { secretsOf as signingSecrets } from "../context.ts";

const logger: Logger = { info() {}, warn: console.warn, error: console.error };

// #region snippet
// push-worker.ts: the thread's module.
import { guardedPushFetch } from "@a2a-partner/a2a-core/node";
import { openDatabase } from "@a2a-partner/postgres-store";
import { runPushDispatchWorker } from "@a2a-partner/postgres-store/dispatch-thread";

await runPushDispatchWorker(async (data: { url: string }) => {
  const db = await openDatabase({ url: data.url, pool: { max: 4 } }); // a pool of its own, same database
  return { db, push: { signingSecrets, fetch: guardedPushFetch() }, logger, close: () => db.close() };
});
// #endregion snippet
