import { randomUUID } from "node:crypto";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CacheInvalidation, type Database, InvalidatedCache, openDatabase, pgliteDatabase } from "../src/index.js";
import { cacheChangeTriggerSql } from "./support/cache-change-trigger.js";

// A channel of this file's own: NOTIFY is database-wide, and other suites share the PostgreSQL server.
const suffix = randomUUID().replaceAll("-", "").slice(0, 16);
const channel = `cache_test_${suffix}`;

/** A table whose committed changes NOTIFY `channel` with its name, as the README shows. */
const SCHEMA = `
create table prices (sku text primary key, cents integer not null);
${cacheChangeTriggerSql("prices", channel)}
insert into prices values ('apple', 100);`;

interface Instances {
  /** Two Databases over the same data, as two server instances. */
  open(): Promise<[Database, Database]>;
  close(): Promise<void>;
}

async function pgliteInstances(): Promise<Instances> {
  const instance = await PGlite.create("memory://", await freshPgliteOptions());
  await instance.exec(SCHEMA);
  const opened: Database[] = [];
  return {
    async open() {
      const pair: [Database, Database] = [
        pgliteDatabase(instance, { closeInstance: false }),
        pgliteDatabase(instance, { closeInstance: false }),
      ];
      opened.push(...pair);
      return pair;
    },
    async close() {
      for (const db of opened) await db.close();
      await instance.close();
    },
  };
}

async function postgresInstances(): Promise<Instances> {
  const schema = `cache_test_${suffix}`;
  const admin = await openDatabase({ url: POSTGRES_URL });
  await admin.exec(`create schema ${schema}; set search_path = ${schema};${SCHEMA}`);
  const opened: Database[] = [];
  const inSchema = () => openDatabase({ url: POSTGRES_URL, pool: { max: 2, options: `-c search_path=${schema}` } });
  return {
    async open() {
      const pair: [Database, Database] = [await inSchema(), await inSchema()];
      opened.push(...pair);
      return pair;
    },
    async close() {
      for (const db of opened) await db.close();
      await admin.exec(`drop schema ${schema} cascade`);
      await admin.close();
    },
  };
}

const backends: [string, () => Promise<Instances>][] = [
  ["PGlite", pgliteInstances],
  ...((await postgresAvailable()) ? [["PostgreSQL", postgresInstances] as [string, () => Promise<Instances>]] : []),
];

describe.each(backends)("CacheInvalidation on %s", (_name, makeInstances) => {
  let instances: Instances;
  let reader: Database;
  let writer: Database;
  beforeAll(async () => {
    instances = await makeInstances();
    [reader, writer] = await instances.open();
  });
  afterAll(() => instances?.close());

  async function price(cache: InvalidatedCache<number>, sku: string): Promise<number> {
    const cached = cache.get(sku);
    if (cached !== undefined) return cached;
    const ticket = cache.ticket();
    const { rows } = await reader.query<{ cents: number }>("select cents from prices where sku = $1", [sku]);
    const cents = rows[0]?.cents ?? -1;
    cache.remember(sku, cents, ticket);
    return cents;
  }

  it("serves from memory until another instance commits a change to the table, then reads it again", async () => {
    const invalidation = new CacheInvalidation(reader, { channel });
    const cache = new InvalidatedCache<number>(invalidation, ["prices"], 100);
    await invalidation.start();
    try {
      expect(invalidation.trusted).toBe(true);
      expect(await price(cache, "apple")).toBe(100);
      expect(cache.get("apple")).toBe(100);
      await writer.query("update prices set cents = 120 where sku = 'apple'");
      // The NOTIFY arrives after the commit; from then on the cache answers nothing stale.
      await vi.waitFor(() => expect(cache.get("apple")).toBeUndefined(), { timeout: 5_000 });
      expect(await price(cache, "apple")).toBe(120);
    } finally {
      await invalidation.close();
    }
    expect(invalidation.trusted).toBe(false);
    expect(cache.get("apple")).toBeUndefined();
  });
});
