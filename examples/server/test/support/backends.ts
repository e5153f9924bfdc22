import { randomBytes } from "node:crypto";
import { type Database, openDatabase } from "@a2a-partner/postgres-store";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import pg from "pg";
import { migrateReferenceSchema } from "../../src/migrations.ts";
import { migratedPgliteOptions } from "./migrated-template.ts";

export { POSTGRES_URL, postgresAvailable };

export type Backend = "pglite" | "postgres";

export interface TestDatabase {
  db: Database;
  /** For another process or instance to open the same data: a URL + schema, or a PGlite directory. */
  openOptions: { url?: string; schema?: string; dataDir?: string };
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a schema of its own in the real
 * PostgreSQL (dropped at the end) so files never see each other's rows. `migrateWith` replaces the
 * reference schema's migrations (e.g. with the baselines only).
 */
export async function createTestDatabase(
  backend: Backend,
  options: { dataDir?: string; migrateWith?: (db: Database) => Promise<unknown> } = {},
): Promise<TestDatabase> {
  const migrateSchema = options.migrateWith ?? migrateReferenceSchema;
  if (backend === "pglite") {
    const dataDir = options.dataDir ?? "memory://";
    // The reference schema comes migrated with the template; a `migrateWith` of its own starts from empty.
    const template = options.migrateWith ? freshPgliteOptions : migratedPgliteOptions;
    const db = await openDatabase({ dataDir, ...(dataDir === "memory://" ? await template() : {}) });
    await migrateSchema(db);
    return { db, openOptions: { dataDir }, drop: () => db.close() };
  }
  const schema = `srv_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const db = await openPostgresSchema(schema);
  await migrateSchema(db);
  return {
    db,
    openOptions: { url: POSTGRES_URL, schema },
    async drop() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}

export function openPostgresSchema(schema: string): Promise<Database> {
  return openDatabase({ url: POSTGRES_URL, pool: { options: `-c search_path=${schema}`, max: 10 } });
}
