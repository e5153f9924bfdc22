import { guardedPushFetch } from "@a2a-partner/a2a-core/node";
import { secretsOf as signingSecrets } from "../context.ts";

const instanceId = `runner-${crypto.randomUUID()}`;

// #region snippet
import { createPushDispatcher } from "@a2a-partner/a2a-core";
import { openDatabase, PostgresPushDeliveryQueue } from "@a2a-partner/postgres-store";

const db = await openDatabase({ url: process.env.DATABASE_URL, pool: { max: 4 } });
const dispatcher = createPushDispatcher({
  deliveries: new PostgresPushDeliveryQueue(db), // its watch() hears every instance's commits through LISTEN
  instanceId, // the owner of its claims
  push: { signingSecrets, fetch: guardedPushFetch() },
});
dispatcher.start();

// …and at shutdown: await dispatcher.close(graceMs);
// #endregion snippet

export { db, dispatcher };
