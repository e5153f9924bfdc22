import { authenticate, executor } from "../context.ts";

// #region snippet
import { createA2AHandler } from "@a2a-partner/a2a-core";
import { createPostgresStores, migrate, openDatabase } from "@a2a-partner/postgres-store";

// DATABASE_URL set: PostgreSQL through pg.Pool; unset: PGlite with its data under ./.data/pglite.
const db = await openDatabase({ url: process.env.DATABASE_URL });
await migrate(db); // the store's own tables; idempotent, safe when several instances start at once
const stores = createPostgresStores(db);
const handler = createA2AHandler({ stores, executor, authenticate });

// on shutdown: the handler first, then the event log's listener, then the database
await handler.close();
await stores.events.close();
await db.close();
// #endregion snippet
