import { secretsOf as signingSecrets } from "../context.ts";

const instanceId = `runner-${crypto.randomUUID()}`;

// #region snippet
import { createPushDispatcher, PushTelemetry } from "@a2a-partner/a2a-core";
import { guardedPushFetch } from "@a2a-partner/a2a-core/node";
import { openDatabase, PostgresPushDeliveryQueue } from "@a2a-partner/postgres-store";

// In the worker thread: a pool of its own on the same PostgreSQL database.
const db = await openDatabase({ url: process.env.DATABASE_URL, pool: { max: 4 } });
const queue = new PostgresPushDeliveryQueue(db);
const dispatcher = createPushDispatcher({
  deliveries: queue, // its watch() hears every instance's commits through LISTEN
  instanceId, // the owner of its claims: the handler's instanceId, since that handler runs no dispatcher
  push: { signingSecrets, fetch: guardedPushFetch() },
  telemetry: new PushTelemetry(), // the default; or hand the measurements to a thread with an SDK
});
dispatcher.start();

// …and at shutdown: await dispatcher.close(graceMs);
// #endregion snippet

export { db, dispatcher };
