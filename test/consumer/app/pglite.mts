// docs/embedding.md's durable stores from the installed tarballs: PGlite in its worker thread (the built
// worker file and the packed migrations must be found inside node_modules), both migration sources, the
// handler on those stores, one task streamed with a plain fetch, then a clean shutdown.
import { createA2AHandler } from "@a2a-partner/a2a-core";
import { metricsMigrations } from "@a2a-partner/metrics-core";
import { createPostgresStores, migrate, openDatabase, storeMigrations } from "@a2a-partner/postgres-store";
import { streamWithFetch } from "./fetch-stream.mts";

const db = await openDatabase({ dataDir: process.argv[2] });
const migrated = await migrate(db, { sources: [storeMigrations(), metricsMigrations()] });
const stores = createPostgresStores(db);
const handler = createA2AHandler({
  stores,
  executor: {
    async execute({ emit }) {
      await emit({ kind: "status", message: "stored", metadata: { percent: 100 } });
      return { state: "TASK_STATE_COMPLETED", message: "Done" };
    },
  },
  authenticate: async () => ({ ok: true, workspaceId: "5b0b3a4e-8f3c-4d0e-9a57-3c1f2d7e6a10" }),
});
// Any token: this handler lets everyone in.
const { frames } = await streamWithFetch((request) => handler.fetch(request), "http://localhost", "any");
const { rows } = await db.query<{ count: number }>("select count(*)::int as count from task_events");
await handler.close({ graceMs: 1_000 });
await stores.events.close();
await db.close();
console.log(
  JSON.stringify({
    inWorker: db.inWorker,
    migrated: migrated.applied.length > 0,
    frames,
    storedEvents: rows[0]?.count,
  }),
);
