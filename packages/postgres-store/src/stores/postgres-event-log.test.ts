import { describe, expect, it } from "vitest";
import type { Database, QueryResult } from "../database.js";
import { PostgresEventLog, TASK_EVENTS_CHANNEL } from "./postgres-event-log.js";

const TASK = "7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b11";

/** A Database that only answers "newest seq" reads and records LISTENs, to watch the waiter logic. */
function fakeDatabase(lastSeq: { value: number }) {
  const listeners: Array<{ channel: string; onPayload: (p: string) => void }> = [];
  const db: Database = {
    kind: "pglite",
    async query<Row>(): Promise<QueryResult<Row>> {
      return { rows: [{ last_seq: lastSeq.value }] as Row[], rowCount: 1 };
    },
    async exec() {},
    async transaction() {
      throw new Error("not used");
    },
    async listen(channel, onPayload) {
      listeners.push({ channel, onPayload });
      return async () => {
        listeners.splice(
          listeners.findIndex((l) => l.onPayload === onPayload),
          1,
        );
      };
    },
    async notify(channel, payload) {
      for (const l of listeners) if (l.channel === channel) l.onPayload(payload);
    },
    async close() {},
  };
  return { db, listeners };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("PostgresEventLog.watch", () => {
  it("LISTENs once per store instance, however many watchers there are", async () => {
    const { db, listeners } = fakeDatabase({ value: 1 });
    const log = new PostgresEventLog(db, { recheckIntervalMs: 60_000 });
    const stops = Array.from({ length: 25 }, () => log.watch(TASK, () => {}));
    await tick();
    // One on the task events' channel, one on the followers' (task-followers.ts).
    expect(listeners.map((listener) => listener.channel).sort()).toEqual([TASK_EVENTS_CHANNEL, "a2a_task_followers"]);
    for (const stop of stops) stop();
    await log.close();
    expect(listeners).toHaveLength(0);
  });

  it("tells each watcher of a notified task its newest seq, in single and batched payloads", async () => {
    const { db } = fakeDatabase({ value: 2 });
    const log = new PostgresEventLog(db, { recheckIntervalMs: 60_000 });
    const other = "0b8e7f9a-5a1b-4c3d-8e9f-0a1b2c3d4e5f";
    const seen: string[] = [];
    const stopA = log.watch(TASK, (seq) => seen.push(`a:${seq}`));
    const stopB = log.watch(TASK.toUpperCase(), (seq) => seen.push(`b:${seq}`));
    const stopOther = log.watch(other, (seq) => seen.push(`other:${seq}`));
    await tick();
    await db.notify(TASK_EVENTS_CHANNEL, `${TASK} 3`);
    expect(seen).toEqual(["a:3", "b:3"]);
    // One group commit names several tasks.
    await db.notify(TASK_EVENTS_CHANNEL, `${TASK} 4,${other} 9`);
    expect(seen).toEqual(["a:3", "b:3", "a:4", "b:4", "other:9"]);
    stopB();
    await db.notify(TASK_EVENTS_CHANNEL, `${TASK} 5`);
    expect(seen.at(-1)).toBe("a:5");
    expect(seen.filter((s) => s.startsWith("b:"))).toHaveLength(2);
    stopA();
    stopOther();
    await log.close();
  });

  it("ignores garbage notifications without throwing", async () => {
    const { db } = fakeDatabase({ value: 1 });
    const log = new PostgresEventLog(db, { recheckIntervalMs: 60_000 });
    const seen: unknown[] = [];
    const stop = log.watch(TASK, (seq) => seen.push(seq));
    await tick();
    await db.notify(TASK_EVENTS_CHANNEL, "");
    await db.notify(TASK_EVENTS_CHANNEL, "no spaces here");
    await db.notify(TASK_EVENTS_CHANNEL, ",,,");
    expect(seen).toEqual([]);
    stop();
    await log.close();
  });
});

describe("PostgresEventLog's safety re-read", () => {
  it("re-reads all watched tasks in one query per interval, and tells a watcher only what changed", async () => {
    const tasks = Array.from({ length: 5 }, (_, i) => `7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b2${i}`);
    // The first task is gone (deleted); the others are at seq 1. The fake answers as the re-check's SQL
    // does: the tasks whose newest seq is not what their watchers were told (the store suites run the
    // real statement on PGlite and PostgreSQL).
    const newest = new Map(tasks.slice(1).map((id) => [id, 1]));
    let queries = 0;
    const db: Database = {
      kind: "pglite",
      async query<Row>(_text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
        queries += 1;
        const ids = String(params?.[0]).split(",");
        const told = String(params?.[1]).split(",").map(Number);
        const rows = ids
          .map((id, i) => ({ id, last_seq: newest.get(id) ?? null, told: told[i] }))
          .filter((row) => row.last_seq !== row.told)
          .map(({ id, last_seq }) => ({ id, last_seq }));
        return { rows: rows as Row[], rowCount: rows.length };
      },
      async exec() {},
      async transaction() {
        throw new Error("not used");
      },
      async listen() {
        return async () => {};
      },
      async notify() {},
      async close() {},
    };
    const log = new PostgresEventLog(db, { recheckIntervalMs: 30 });
    const told = new Map<string, Array<number | undefined>>();
    const stops = tasks.flatMap((id) =>
      Array.from({ length: 20 }, (_, watcher) =>
        log.watch(id, (seq) => {
          if (watcher === 0) told.set(id, [...(told.get(id) ?? []), seq]);
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(queries).toBeGreaterThanOrEqual(2);
    expect(queries).toBeLessThanOrEqual(8); // one per interval, not one per watcher (100 watchers)
    // Gone: "read and see", at every re-check.
    expect(told.get(tasks[0] as string)?.length).toBeGreaterThanOrEqual(2);
    expect(told.get(tasks[0] as string)?.every((seq) => seq === undefined)).toBe(true);
    expect(told.get(tasks[1] as string)).toEqual([1]); // told once, not again at every re-check
    newest.set(tasks[1] as string, 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(told.get(tasks[1] as string)).toEqual([1, 2]);
    for (const stop of stops) stop();
    await log.close();
  });
});
