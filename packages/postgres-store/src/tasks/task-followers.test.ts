import { afterEach, describe, expect, it, vi } from "vitest";
import type { Database, QueryResult } from "../database.js";
import { TASK_FOLLOWERS_CHANNEL, TaskFollowers } from "./task-followers.js";

const TASK = "7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b11";

/** A Database whose NOTIFY reaches every LISTEN on it at once, as one PostgreSQL reaches every process. */
function sharedDatabase() {
  const listeners: Array<{ channel: string; onPayload: (payload: string) => void }> = [];
  const notified: string[] = [];
  const db: Database = {
    kind: "postgres",
    async query<Row>(): Promise<QueryResult<Row>> {
      return { rows: [], rowCount: 0 };
    },
    async exec() {},
    async transaction() {
      throw new Error("not used");
    },
    async listen(channel, onPayload) {
      listeners.push({ channel, onPayload });
      return async () => {};
    },
    async notify(channel, payload) {
      notified.push(payload);
      for (const listener of listeners) if (listener.channel === channel) listener.onPayload(payload);
    },
    async close() {},
  };
  return { db, notified };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("TaskFollowers", () => {
  it("tells the other processes which tasks this one follows, for as long as it does", async () => {
    vi.useFakeTimers();
    const { db, notified } = sharedDatabase();
    const here = new TaskFollowers(db);
    const running = new TaskFollowers(db); // the process that runs the task
    await Promise.all([here.listen(), running.listen()]);
    const unfollow = here.follow(TASK);
    await vi.advanceTimersByTimeAsync(1);
    expect(notified).toHaveLength(1);
    expect(notified[0]).toMatch(new RegExp(` ${TASK}$`));
    expect(running.followedElsewhere(TASK)).toBe(true);
    // Its own announcement is not another process's.
    expect(here.followedElsewhere(TASK)).toBe(false);

    // Repeated while followed, so the runner keeps carrying the task's events.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(running.followedElsewhere(TASK)).toBe(true);
    expect(notified.length).toBeGreaterThan(5);

    // No longer followed: no more announcements, and the runner stops carrying within 35 s.
    unfollow();
    await vi.advanceTimersByTimeAsync(36_000);
    expect(running.followedElsewhere(TASK)).toBe(false);
  });

  it("announces a task once however many of its streams follow it, until the last one stops", async () => {
    vi.useFakeTimers();
    const { db, notified } = sharedDatabase();
    const here = new TaskFollowers(db);
    const running = new TaskFollowers(db);
    await Promise.all([here.listen(), running.listen()]);
    const stops = [here.follow(TASK), here.follow(TASK), here.follow(TASK)];
    await vi.advanceTimersByTimeAsync(1);
    expect(notified).toHaveLength(1);
    stops[0]?.();
    stops[1]?.();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(running.followedElsewhere(TASK)).toBe(true);
    stops[2]?.();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(running.followedElsewhere(TASK)).toBe(false);
  });

  it("ignores a malformed announcement", async () => {
    const { db } = sharedDatabase();
    const running = new TaskFollowers(db);
    await running.listen();
    await db.notify(TASK_FOLLOWERS_CHANNEL, "");
    await db.notify(TASK_FOLLOWERS_CHANNEL, TASK);
    expect(running.followedElsewhere(TASK)).toBe(false);
  });
});
