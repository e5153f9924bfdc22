import { setTimeout as sleep } from "node:timers/promises";
import type { PushDelivery } from "@a2a-partner/a2a-core";
import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createPostgresStores,
  type Database,
  migrate,
  openDatabase,
  PostgresPushConfigStore,
  type PostgresStores,
  pgliteDatabase,
} from "../src/index.js";
import { deliveryKeys, pushConfig, RunningTask } from "./support/push-fixtures.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

/** Two instances over one database: two pools (PostgreSQL) or two Database wrappers (PGlite). */
interface Pair {
  dbs: [Database, Database];
  close(): Promise<void>;
}

/**
 * PostgreSQL: a database of its own, not a schema, because NOTIFY channels are database-wide and other
 * suites on the same server NOTIFY on the push channel too (a watcher here must hear only this file).
 */
async function openPair(kind: "pglite" | "postgres"): Promise<Pair> {
  if (kind === "pglite") {
    const instance = await PGlite.create("memory://", await freshPgliteOptions());
    const dbs: [Database, Database] = [
      pgliteDatabase(instance, { closeInstance: false }),
      pgliteDatabase(instance, { closeInstance: false }),
    ];
    await migrate(dbs[0]);
    return {
      dbs,
      async close() {
        for (const db of dbs) await db.close();
        await instance.close();
      },
    };
  }
  const name = `push_pair_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = await openDatabase({ url: POSTGRES_URL });
  await admin.exec(`create database ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const dbs: [Database, Database] = [
    await openDatabase({ url: url.toString(), pool: { max: 4 } }),
    await openDatabase({ url: url.toString(), pool: { max: 4 } }),
  ];
  await migrate(dbs[0]);
  return {
    dbs,
    async close() {
      for (const db of dbs) await db.close();
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    },
  };
}

describe.each(kinds)("push deliveries across two instances (%s)", (kind) => {
  const fixtures = storeFixtures();
  const workspaceId = crypto.randomUUID();
  let pair: Pair;
  let one: PostgresStores;
  let two: PostgresStores;

  beforeAll(async () => {
    pair = await openPair(kind);
    one = createPostgresStores(pair.dbs[0]);
    two = createPostgresStores(pair.dbs[1]);
  });
  afterAll(async () => {
    for (const stores of [one, two]) {
      await stores?.push.deliveries.close();
      await stores?.events.close();
    }
    await pair?.close();
  });
  beforeEach(async () => {
    await pair.dbs[0].query("delete from push_deliveries");
  });

  /** A running task of instance one, with configs `ids`. */
  async function task(ids: string[]): Promise<RunningTask> {
    const running = await RunningTask.start(one, fixtures, workspaceId);
    for (const id of ids) await one.push.configs.put(workspaceId, pushConfig(running.task.id, id), 10);
    return running;
  }

  it("wakes this instance's watcher directly after its commit, the other's by NOTIFY, and neither for a task without configs", async () => {
    const heard = { one: 0, two: 0 };
    const stopOne = one.push.deliveries.watch(() => heard.one++);
    const stopTwo = two.push.deliveries.watch(() => heard.two++);
    try {
      // A watcher is told once its LISTEN runs (anything before may have been missed): then it listens.
      await vi.waitFor(() => expect(heard.one > 0 && heard.two > 0).toBe(true), { timeout: 5_000 });
      const quiet = await task([]);
      const pushed = await task(["receiver"]);
      heard.one = 0;
      heard.two = 0;
      expect(await quiet.next()).toBe(true);
      await sleep(300);
      expect(heard).toEqual({ one: 0, two: 0 });

      expect(await pushed.next()).toBe(true);
      // Before any notification could have come back: told by the commit itself.
      expect(heard.one).toBeGreaterThan(0);
      await vi.waitFor(() => expect(heard.two).toBeGreaterThan(0), { timeout: 5_000 });

      // A cancel on the other instance (EventLog.append) wakes this one through NOTIFY too.
      heard.one = 0;
      must(await two.events.append(pushed.task.id, fixtures.finished(pushed.task, "TASK_STATE_CANCELED")));
      await vi.waitFor(() => expect(heard.one).toBeGreaterThan(0), { timeout: 5_000 });
    } finally {
      stopOne();
      stopTwo();
    }
  });

  it("wakes a dispatcher for a start's inline config: its own instance's directly, another's by NOTIFY from an instance that dispatches nothing", async () => {
    const heard = { one: 0, two: 0 };
    const start = async (stores: PostgresStores) => {
      const input = fixtures.newTask(workspaceId);
      await stores.tasks.create({ ...input, pushConfigs: [pushConfig(input.task.id, "inline")] });
    };
    // Instance one has no dispatcher (push.dispatch false): its starts must reach instance two's.
    const stopTwo = two.push.deliveries.watch(() => heard.two++);
    try {
      await vi.waitFor(() => expect(heard.two).toBeGreaterThan(0), { timeout: 5_000 });
      heard.two = 0;
      await start(one);
      await vi.waitFor(() => expect(heard.two).toBeGreaterThan(0), { timeout: 5_000 });

      // With a dispatcher of its own, an instance's start wakes it as the start returns.
      const stopOne = one.push.deliveries.watch(() => heard.one++);
      try {
        await vi.waitFor(() => expect(heard.one).toBeGreaterThan(0), { timeout: 5_000 });
        heard.one = 0;
        await start(one);
        expect(heard.one).toBeGreaterThan(0);
      } finally {
        stopOne();
      }
    } finally {
      stopTwo();
    }
    expect(await pair.dbs[0].query("select count(*)::int as n from push_deliveries")).toMatchObject({
      rows: [{ n: 2 }],
    });
  });

  it("never hands one delivery to two claimers, nor two deliveries of one config, and delivers each once", async () => {
    const tasks = await Promise.all(Array.from({ length: 6 }, () => task(["a", "b"])));
    for (let round = 0; round < 3; round++) await Promise.all(tasks.map((running) => running.next()));
    const expected = tasks.length * 2 * 3;
    const claimedIds = new Set<string>();
    /** The deliveries whose completion was asked for; the next of their config may be claimed only after. */
    const released = new Set<string>();
    const violations: string[] = [];
    const seqOf = (id: string) => Number(id.split("/")[1]);
    const previousOf = (d: PushDelivery) => `${d.event.taskId}/${d.event.seq - 1}/${d.config.id}`;

    const take = (d: PushDelivery) => {
      if (claimedIds.has(d.id)) violations.push(`${d.id} claimed twice`);
      claimedIds.add(d.id);
      // Events 2..4 carry deliveries (the configs were made after seq 1): an earlier one must be released.
      if (seqOf(d.id) > 2 && !released.has(previousOf(d))) violations.push(`${d.id} claimed before its predecessor`);
    };
    const worker = async (stores: PostgresStores, owner: string) => {
      for (let idle = 0; idle < 5; ) {
        const claimed = await stores.push.deliveries.claim(owner, 4, 60_000);
        if (claimed.length === 0) {
          idle++;
          await sleep(20);
          continue;
        }
        idle = 0;
        await Promise.all(
          claimed.map(async (first) => {
            for (let current: PushDelivery | undefined = first; current; ) {
              take(current);
              await sleep(Math.random() * 5); // the receiver's time
              released.add(current.id);
              current = await stores.push.deliveries.complete(owner, current, 60_000);
            }
          }),
        );
      }
    };
    await Promise.all([worker(one, "instance-1"), worker(two, "instance-2"), worker(two, "instance-2b")]);
    expect(violations).toEqual([]);
    expect(claimedIds.size).toBe(expected);
    const { rows } = await pair.dbs[0].query<{ left: number }>("select count(*)::int as left from push_deliveries");
    expect(rows[0]?.left).toBe(0);
  });

  it("lets another owner retake a claim whose lease expired; the old owner can then no longer complete it", async () => {
    const running = await task(["a"]);
    expect(await running.next()).toBe(true);
    expect(await running.next()).toBe(true);
    const [held] = await one.push.deliveries.claim("instance-1", 10, 100);
    expect(await two.push.deliveries.claim("instance-2", 10, 60_000)).toEqual([]);
    await sleep(250);
    const [retaken] = await two.push.deliveries.claim("instance-2", 10, 60_000);
    expect(retaken).toMatchObject({ id: held?.id, attempt: 2 });
    // Instance 1 comes back from its pause: its lease is gone, so is its say over the delivery.
    expect(await one.push.deliveries.complete("instance-1", must(held), 60_000)).toBeUndefined();
    expect(await deliveryKeys(pair.dbs[0], running.task.id)).toEqual(["a 2", "a 3"]);
    expect(must(await two.push.deliveries.complete("instance-2", must(retaken), 60_000)).event.seq).toBe(3);
  });

  it.runIf(kind === "postgres")(
    "gives a config stored while a group commit waited for its task row that commit's event",
    async () => {
      const running = await task([]);
      let appended: Promise<boolean> | undefined;
      // Another instance's put, caught between locking the task row and committing.
      await pair.dbs[1].transaction(async (tx) => {
        await tx.query("select 1 from tasks where id = $1 for no key update", [running.task.id]);
        appended = running.next();
        await vi.waitFor(
          async () => {
            const { rows } = await tx.query<{ waiting: number }>(
              "select count(*)::int as waiting from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
            );
            expect(rows[0]?.waiting).toBe(1);
          },
          { timeout: 5_000, interval: 20 },
        );
        const configs = new PostgresPushConfigStore(tx as Database);
        expect((await configs.put(workspaceId, pushConfig(running.task.id, "just-in-time"), 10)).kind).toBe("stored");
      });
      expect(await must(appended)).toBe(true);
      expect(await deliveryKeys(pair.dbs[0], running.task.id)).toEqual(["just-in-time 2"]);
    },
  );
});
