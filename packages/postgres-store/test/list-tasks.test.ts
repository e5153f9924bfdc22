import { randomUUID } from "node:crypto";
import { createInMemoryStores } from "@a2a-partner/a2a-core";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { createPostgresStores, type Database, migrate, openDatabase, pgliteDatabase } from "../src/index.js";
import { defineListTasksSuite, type ListTasksTarget } from "./list-tasks-suite.js";

defineListTasksSuite("in-memory", async () => {
  const stores = createInMemoryStores();
  return { tasks: stores.tasks, events: stores.events, workspaceA: "ws-a", workspaceB: "ws-b", close: async () => {} };
});

async function overDatabase(db: Database, close: () => Promise<void>): Promise<ListTasksTarget> {
  await migrate(db);
  const workspaceA = randomUUID();
  const workspaceB = randomUUID();
  await db.query(
    "insert into workspaces (id, slug, name, visibility) values ($1, $2, 'A', 'private'), ($3, $4, 'B', 'private')",
    [workspaceA, `a-${workspaceA}`, workspaceB, `b-${workspaceB}`],
  );
  const stores = createPostgresStores(db);
  return {
    tasks: stores.tasks,
    events: stores.events,
    workspaceA,
    workspaceB,
    async close() {
      await stores.events.close();
      await close();
    },
  };
}

defineListTasksSuite("PGlite", async () => {
  const instance = await PGlite.create("memory://");
  const db = pgliteDatabase(instance, { closeInstance: false });
  return overDatabase(db, async () => {
    await db.close();
    await instance.close();
  });
});

const url = process.env.DATABASE_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/test";
const required = process.env.CI === "true";
const reachable = required || (await canConnect(url));

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

defineListTasksSuite(
  "PostgreSQL",
  async () => {
    // A fresh schema of its own, dropped at the end.
    const schema = `list_tasks_${randomUUID().replaceAll("-", "")}`;
    const admin = await openDatabase({ url });
    await admin.exec(`create schema ${schema}`);
    const db = await openDatabase({ url, pool: { max: 4, options: `-c search_path=${schema}` } });
    return overDatabase(db, async () => {
      await db.close();
      await admin.exec(`drop schema if exists ${schema} cascade`);
      await admin.close();
    });
  },
  !reachable,
);
