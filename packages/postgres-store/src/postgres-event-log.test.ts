import { describe, expect, it } from "vitest";
import type { Database, QueryResult } from "./database.js";
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

describe("PostgresEventLog.waitForEvents", () => {
  it("LISTENs once per store instance, however many waiters there are", async () => {
    const { db, listeners } = fakeDatabase({ value: 1 });
    const log = new PostgresEventLog(db, { recheckIntervalMs: 60_000 });
    const abort = new AbortController();
    const waits = Array.from({ length: 25 }, () => log.waitForEvents(TASK, 1, abort.signal).catch(() => "aborted"));
    await tick();
    expect(listeners).toHaveLength(1);
    expect(listeners[0]?.channel).toBe(TASK_EVENTS_CHANNEL);
    abort.abort();
    expect(await Promise.all(waits)).toEqual(Array(25).fill("aborted"));
    await log.close();
    expect(listeners).toHaveLength(0);
  });

  it("wakes the waiters of the notified task that are behind the new seq, and only those", async () => {
    const { db } = fakeDatabase({ value: 2 });
    const log = new PostgresEventLog(db, { recheckIntervalMs: 60_000 });
    const abort = new AbortController();
    const woke: string[] = [];
    const behind = log.waitForEvents(TASK, 2, abort.signal).then(() => woke.push("behind"));
    const ahead = log.waitForEvents(TASK, 3, abort.signal).then(
      () => woke.push("ahead"),
      () => undefined,
    );
    const otherTask = log.waitForEvents("0b8e7f9a-5a1b-4c3d-8e9f-0a1b2c3d4e5f", 2, abort.signal).then(
      () => woke.push("other"),
      () => undefined,
    );
    await tick();
    await db.notify(TASK_EVENTS_CHANNEL, `${TASK} 3`);
    await behind;
    await tick();
    expect(woke).toEqual(["behind"]);
    abort.abort();
    await Promise.all([ahead, otherTask]);
    await log.close();
  });

  it("ignores garbage notifications without throwing", async () => {
    const { db } = fakeDatabase({ value: 1 });
    const log = new PostgresEventLog(db, { recheckIntervalMs: 60_000 });
    const abort = new AbortController();
    const waiting = log.waitForEvents(TASK, 1, abort.signal).catch(() => "aborted");
    await tick();
    await db.notify(TASK_EVENTS_CHANNEL, "");
    await db.notify(TASK_EVENTS_CHANNEL, "no spaces here");
    abort.abort();
    expect(await waiting).toBe("aborted");
    await log.close();
  });
});

describe("PostgresEventLog's safety re-read", () => {
  it("re-reads all waiting tasks in one query per interval, however many streams wait", async () => {
    const tasks = Array.from({ length: 5 }, (_, i) => `7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b2${i}`);
    const sql: string[] = [];
    const db: Database = {
      kind: "pglite",
      async query<Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
        sql.push(text);
        const ids = text.includes("any(") ? (params?.[0] as string[]) : [params?.[0] as string];
        return { rows: ids.map((id) => ({ id, last_seq: 1 })) as Row[], rowCount: ids.length };
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
    const abort = new AbortController();
    const waits = tasks.flatMap((id) =>
      Array.from({ length: 20 }, () => log.waitForEvents(id, 1, abort.signal).catch(() => "aborted")),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sweeps = sql.filter((text) => text.includes("any(")).length;
    expect(sweeps).toBeGreaterThanOrEqual(2);
    expect(sweeps).toBeLessThanOrEqual(8); // one per interval, not one per waiter (100 waiters)
    abort.abort();
    expect(new Set(await Promise.all(waits))).toEqual(new Set(["aborted"]));
    await log.close();
  });
});
