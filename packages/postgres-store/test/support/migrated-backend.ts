import { randomUUID } from "node:crypto";
import type { A2AHandler } from "@a2a-partner/a2a-core";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { POSTGRES_URL } from "@a2a-partner/test-support/postgres";
import { afterAll, beforeAll } from "vitest";
import { createPostgresStores, type Database, migrate, openDatabase, type PostgresStores } from "../../src/index.js";

/** A migrated database of one kind for one test file, and how to throw it away. */
export interface MigratedBackend {
  db: Database;
  /** On PostgreSQL, the schema it lives in (a second pool joins it with `-c search_path=<schema>`). */
  schema?: string;
  drop(): Promise<void>;
}

/**
 * An in-memory PGlite, or a schema of its own on the real PostgreSQL (named after `label`, dropped with
 * everything in it): the store's migrations applied either way.
 */
export async function openMigratedBackend(kind: "pglite" | "postgres", label: string): Promise<MigratedBackend> {
  if (kind === "pglite") {
    const db = await openDatabase({ dataDir: "memory://", ...(await freshPgliteOptions()) });
    await migrate(db);
    return { db, drop: () => db.close() };
  }
  const schema = `${label}_${randomUUID().replaceAll("-", "")}`;
  const admin = await openDatabase({ url: POSTGRES_URL });
  await admin.exec(`create schema ${schema}`);
  const db = await openDatabase({ url: POSTGRES_URL, pool: { max: 4, options: `-c search_path=${schema}` } });
  await migrate(db);
  return {
    db,
    schema,
    async drop() {
      await db.close();
      await admin.exec(`drop schema if exists ${schema} cascade`);
      await admin.close();
    },
  };
}

/**
 * A migrated backend and its stores for one `describe` (opened before its tests, closed after): the
 * fields are filled in `beforeAll`.
 */
export function migratedStoresPerSuite(
  kind: "pglite" | "postgres",
  label: string,
): { backend: MigratedBackend; stores: PostgresStores } {
  const opened = {} as { backend: MigratedBackend; stores: PostgresStores };
  beforeAll(async () => {
    opened.backend = await openMigratedBackend(kind, label);
    opened.stores = createPostgresStores(opened.backend.db);
  });
  afterAll(async () => {
    await opened.stores?.push.deliveries.close();
    await opened.stores?.events.close();
    await opened.backend?.drop();
  });
  return opened;
}

/**
 * A migrated backend for one `describe` whose tests open handlers: opened before its tests (not when
 * `skip`, PostgreSQL being out of reach), the handlers pushed to `handlers` closed and the backend
 * dropped after them. `backend` is filled in `beforeAll`.
 */
export function handlerBackendPerSuite(
  kind: "pglite" | "postgres",
  label: string,
  skip: boolean,
): { backend: MigratedBackend; handlers: A2AHandler[] } {
  const suite = { handlers: [] as A2AHandler[] } as { backend: MigratedBackend; handlers: A2AHandler[] };
  beforeAll(async () => {
    if (!skip) suite.backend = await openMigratedBackend(kind, label);
  });
  afterAll(async () => {
    for (const handler of suite.handlers.splice(0)) await handler.close({ graceMs: 0 });
    await suite.backend?.drop();
  });
  return suite;
}
