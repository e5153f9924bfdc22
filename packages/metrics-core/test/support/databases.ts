import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { POSTGRES_URL } from "@a2a-partner/test-support/postgres";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { metricsMigrationsDir } from "../../src/index.js";

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

/**
 * This package's real migrations, each in a transaction as postgres-store's migrator runs them (this
 * package's tests do not depend on the store).
 */
async function schemaScript(): Promise<string> {
  const dir = metricsMigrationsDir();
  const files = (await readdir(dir)).filter((name) => /^\d+_.*\.sql$/.test(name)).sort();
  const scripts = await Promise.all(files.map((name) => readFile(join(dir, name), "utf8")));
  return scripts.map((sql) => `begin;\n${sql}\ncommit;`).join("\n");
}

/** An in-memory PGlite (PostgreSQL 18 in WASM). initdb takes seconds: open one per test file. */
export async function openPglite(): Promise<TestDatabase> {
  const db = await PGlite.create(await freshPgliteOptions());
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

export { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
