import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { POSTGRES_URL } from "../../../../test/support/postgres.js";

/** What the suites need from a database: parameterised queries, multi-statement scripts, cleanup. */
export interface TestDatabase {
  readonly kind: "pglite" | "postgres";
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  /** Runs a script of several statements (no parameters). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /** The driver object itself, to check that it fits `MetricsQueryable` unwrapped. */
  readonly driver: PGlite | pg.Client;
}

const RAW_TABLES = new URL("./raw-tables.sql", import.meta.url);
const ROLLUPS_MIGRATION = new URL("../../../postgres-store/migrations/0002_metrics_rollups.sql", import.meta.url);
const DELTAS_MIGRATION = new URL("../../../postgres-store/migrations/0006_rollup_deltas.sql", import.meta.url);

/**
 * The raw tables, then the real metrics migrations (the rollups, then the deltas that feed them), each in
 * a transaction as the store's migrator runs them.
 */
async function schemaScript(): Promise<string> {
  const [raw, rollups, deltas] = await Promise.all(
    [RAW_TABLES, ROLLUPS_MIGRATION, DELTAS_MIGRATION].map((file) => readFile(file, "utf8")),
  );
  return `begin;\n${raw}\n${rollups}\ncommit;\nbegin;\n${deltas}\ncommit;`;
}

/** An in-memory PGlite (PostgreSQL 18 in WASM). initdb takes seconds: open one per test file. */
export async function openPglite(): Promise<TestDatabase> {
  const db = await PGlite.create();
  await db.exec(await schemaScript());
  return {
    kind: "pglite",
    driver: db,
    async query<Row>(sql: string, params: unknown[] = []) {
      const result = await db.query<Row>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql) {
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}

export interface PostgresTestDatabase extends TestDatabase {
  /** The throwaway schema this file's tables live in; connect more clients with `clientOptions()`. */
  readonly schema: string;
  clientOptions(): pg.ClientConfig;
}

/** The real PostgreSQL, in a fresh schema `m_<random>` that `close()` drops again. */
export async function openPostgres(): Promise<PostgresTestDatabase> {
  const schema = `m_${randomBytes(6).toString("hex")}`;
  const clientOptions = (): pg.ClientConfig => ({
    connectionString: POSTGRES_URL,
    connectionTimeoutMillis: 5_000,
    options: `-c search_path=${schema}`,
  });
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5_000 });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();

  const client = new pg.Client(clientOptions());
  await client.connect();
  await client.query(await schemaScript());
  return {
    kind: "postgres",
    driver: client,
    schema,
    clientOptions,
    async query<Row>(sql: string, params: unknown[] = []) {
      const result = await client.query(sql, params);
      return { rows: result.rows as Row[] };
    },
    async exec(sql) {
      await client.query(sql);
    },
    async close() {
      try {
        await client.query(`drop schema ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

export { POSTGRES_URL, postgresAvailable } from "../../../../test/support/postgres.js";
