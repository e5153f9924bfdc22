import { randomUUID } from "node:crypto";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStores, type Database, migrate, openDatabase, type PostgresStores } from "../src/index.js";

const HOUR_MS = 3_600_000;

// A lease renewal takes thousands of task rows at once, while group commits take the same rows for the
// tasks' events. When the renewal waited for a row a group commit held, the two could deadlock (their
// plans lock rows in different orders), and PostgreSQL failed the group commit: the tasks of its events
// ended failed (seen in the push bench with ~1,000 tasks running). The renewal now never waits.
// PostgreSQL only: PGlite runs one transaction at a time, so no other can hold a row meanwhile.
describe.skipIf(!(await postgresAvailable()))(
  "lease renewal beside a transaction holding a task row (postgres)",
  () => {
    const fixtures = storeFixtures();
    const workspaceId = randomUUID();
    const schema = `lease_locks_${randomUUID().replaceAll("-", "")}`;
    let admin: Database;
    let db: Database;
    let stores: PostgresStores;
    let holder: pg.Client;

    beforeAll(async () => {
      admin = await openDatabase({ url: POSTGRES_URL });
      await admin.exec(`create schema ${schema}`);
      db = await openDatabase({ url: POSTGRES_URL, pool: { max: 4, options: `-c search_path=${schema}` } });
      await migrate(db);
      stores = createPostgresStores(db);
      holder = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
      await holder.connect();
    });
    afterAll(async () => {
      await holder?.end();
      await stores?.events.close();
      await db?.close();
      await admin?.exec(`drop schema if exists ${schema} cascade`);
      await admin?.close();
    });

    const leaseOf = async (taskId: string) =>
      Date.parse((await stores.tasks.get(workspaceId, taskId))?.lease?.expiresAt ?? "");
    const start = async () =>
      (await stores.tasks.create(fixtures.newTask(workspaceId, { lease: { owner: "runner-a", durationMs: 60_000 } })))
        .task.id;

    it("renews every lease it can without waiting for a row another transaction holds, and keeps that task", async () => {
      const [held, free, other] = [await start(), await start(), await start()];
      const before = await leaseOf(held);
      await holder.query("begin");
      await holder.query("select 1 from tasks where id = $1 for update", [held]);
      try {
        const renewal = stores.tasks.renewLeases("runner-a", [held, free, other], HOUR_MS);
        const waited = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 3_000).unref());
        // Every one kept (the held task is still runner-a's), none reported lost.
        expect(await Promise.race([renewal, waited])).toEqual([held, free, other]);
        expect(await leaseOf(free)).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
        expect(await leaseOf(other)).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
        // The held row was not renewed: its lease is as it was, to be renewed at the next interval.
        expect(await leaseOf(held)).toBe(before);
      } finally {
        await holder.query("rollback");
      }
      expect(await stores.tasks.renewLeases("runner-a", [held], HOUR_MS)).toEqual([held]);
      expect(await leaseOf(held)).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
    });

    it("renews a row another transaction only keeps from changing its key (a push config being added to the task)", async () => {
      const [shared] = [await start()];
      await holder.query("begin");
      // What a foreign key's check takes on the task row while its config is inserted.
      await holder.query("select 1 from tasks where id = $1 for key share", [shared]);
      try {
        const renewal = stores.tasks.renewLeases("runner-a", [shared], HOUR_MS);
        const waited = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 3_000).unref());
        expect(await Promise.race([renewal, waited])).toEqual([shared]);
        expect(await leaseOf(shared)).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
      } finally {
        await holder.query("rollback");
      }
    });

    it("renews a row held for a moment once it is free, and reports a task taken over meanwhile as lost", async () => {
      const [briefly, takenOver] = [await start(), await start()];
      await holder.query("begin");
      await holder.query("select 1 from tasks where id = any($1::uuid[]) for update", [[briefly, takenOver]]);
      // Another instance takes one over while it holds it; both rows are freed 60 ms later.
      await holder.query("update tasks set lease_owner = 'runner-b' where id = $1", [takenOver]);
      const release = new Promise((resolve) => setTimeout(resolve, 60)).then(() => holder.query("commit"));
      const renewed = await stores.tasks.renewLeases("runner-a", [briefly, takenOver], HOUR_MS);
      await release;
      expect(renewed).toEqual([briefly]);
      expect(await leaseOf(briefly)).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
    });
  },
);
