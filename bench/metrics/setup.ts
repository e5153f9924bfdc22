/**
 * Databases for the metrics bench on the PostgreSQL server under test: created fresh and dropped by name,
 * and a private workspace to load records into.
 */
import { createRequire } from "node:module";

// bench/ is not a workspace package: the workspace packages are resolved from the reference server,
// which depends on them (their built dist/, so run `pnpm build` first).
const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
export const store =
  require("@a2a-partner/postgres-store") as typeof import("../../packages/postgres-store/dist/index.js");
export type Database = import("../../packages/postgres-store/dist/index.js").Database;
export const metrics =
  require("@a2a-partner/metrics-core") as typeof import("../../packages/metrics-core/dist/index.js");

/** What a database name passed to the helpers below must look like (they splice it into DDL). */
export const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `serverUrl` with its path replaced by the database `name`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function recreateDatabase(serverUrl: string, name: string): Promise<void> {
  return asAdmin(serverUrl, name, async (admin) => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  });
}

export function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return asAdmin(serverUrl, name, async (admin) => {
    await admin.query(`drop database if exists ${name} with (force)`);
  });
}

/** Runs DDL on database `name` over a one-connection admin pool, after checking the name is plain. */
async function asAdmin(serverUrl: string, name: string, ddl: (admin: Database) => Promise<void>): Promise<void> {
  // The name is spliced into DDL as an identifier (CREATE DATABASE takes no parameters): a strict pattern only.
  if (!DATABASE_NAME.test(name)) throw new Error(`not a plain database name: ${name}`);
  const admin = await store.openDatabase({ url: serverUrl, pool: { max: 1 } });
  try {
    await ddl(admin);
  } finally {
    await admin.close();
  }
}

/** A private workspace with an Environment and three robots. */
export async function createWorkspace(db: Database, slug: string): Promise<string> {
  const ws = await db.query<{ id: string }>(
    "insert into workspaces (slug, name, visibility) values ($1, $1, 'private') returning id",
    [slug],
  );
  const workspaceId = ws.rows[0]?.id as string;
  const env = await db.query<{ id: string }>(
    "insert into environments (workspace_id, store_id, name) values ($1, 'store-001', $2) returning id",
    [workspaceId, `${slug} store`],
  );
  await db.query("insert into robots (environment_id, name) select $1, 'robot-' || g from generate_series(1, 3) g", [
    env.rows[0]?.id,
  ]);
  return workspaceId;
}
