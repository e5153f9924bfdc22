import { describe, expect, it } from "vitest";
import { queryEventMetrics } from "./query-event-metrics.js";

const WS = "0b5c3f4e-8a61-4f0a-9d3e-2b7c1e6a9f10";

describe("queryEventMetrics", () => {
  it("runs one parameterised statement and shapes its rows", async () => {
    const calls: { sql: string; params: unknown[] }[] = [];
    const db = {
      async query(sql: string, params: unknown[]) {
        calls.push({ sql, params });
        return { rows: [{ section: "alerts", day: "2026-01-01", key: "obstacle_detected", name: null, count: "2" }] };
      },
    };
    const body = await queryEventMetrics(db, WS, { start: new Date("2026-01-01T00:00:00Z"), end: null });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.params).toEqual([WS, "2026-01-01"]);
    expect(body.alerts).toEqual({
      total: 2,
      by_alert_type: { obstacle_detected: 2 },
      by_day: [{ day: "2026-01-01", alert_type: "obstacle_detected", count: 2 }],
    });
    expect(body.window.start).toBe("2026-01-01T00:00:00.000Z");
  });

  it("names the statement by its shape when asked, so each shape is prepared once per connection", async () => {
    const names: (string | undefined)[] = [];
    const db = {
      async query(_sql: string, _params: unknown[], options?: { name?: string }) {
        names.push(options?.name);
        return { rows: [] };
      },
    };
    const day = (d: string, start = "00:00:00") => ({
      start: new Date(`${d}T${start}Z`),
      end: new Date("2026-02-01T00:00:00Z"),
    });
    await queryEventMetrics(db, WS, day("2026-01-01"), { namedStatement: true });
    await queryEventMetrics(db, WS, day("2026-01-05"), { namedStatement: true }); // same shape, other values
    await queryEventMetrics(db, WS, day("2026-01-05", "13:37:00"), { namedStatement: true }); // another shape
    await queryEventMetrics(db, WS, day("2026-01-01")); // not asked: a pg.Pool takes a callback there
    expect(names[0]).toMatch(/^a2a_metrics_[0-9a-z]+$/);
    expect(names[1]).toBe(names[0]);
    expect(names[2]).toMatch(/^a2a_metrics_[0-9a-z]+$/);
    expect(names[2]).not.toBe(names[0]);
    expect(names[3]).toBeUndefined();
  });

  it("passes database errors through to the caller", async () => {
    const db = { query: async () => Promise.reject(new Error("connection refused")) };
    await expect(queryEventMetrics(db, WS, { start: null, end: null })).rejects.toThrow("connection refused");
  });
});
