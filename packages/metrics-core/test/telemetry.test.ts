import { randomUUID } from "node:crypto";
import { installTestTelemetry } from "@a2a-partner/test-support/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMetricsWindow, queryEventMetrics } from "../src/index.js";
import { openPglite, type TestDatabase } from "./support/databases.js";

const otel = installTestTelemetry();
afterAll(() => otel.shutdown());

describe("the metrics query through OpenTelemetry", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());

  it("is a span with the workspace and the window kind, and its duration is measured per window kind", async () => {
    const workspace = randomUUID();
    await queryEventMetrics(db, workspace, parseMetricsWindow({}));
    await queryEventMetrics(
      db,
      workspace,
      parseMetricsWindow({ start_timestamp: "2026-01-01T00:00:00Z", end_timestamp: "2026-01-02T06:30:00Z" }),
    );
    await queryEventMetrics(db, workspace, parseMetricsWindow({ start_timestamp: "2026-01-01T00:00:00Z" }));

    const spans = otel.spansNamed("a2a.metrics.query");
    expect(spans.map((span) => span.attributes["a2a.metrics.window.kind"])).toEqual(["all", "bounded", "from"]);
    expect(spans[0]?.attributes["a2a.workspace.id"]).toBe(workspace);
    expect(await otel.count("a2a.metrics.query.duration", { "a2a.metrics.window.kind": "all" })).toBe(1);
    expect(await otel.count("a2a.metrics.query.duration", { "a2a.metrics.window.kind": "bounded" })).toBe(1);
    expect(await otel.count("a2a.metrics.query.duration", { "a2a.metrics.window.kind": "until" })).toBe(0);
  });

  it("marks a failed statement on its span and measures no duration for it", async () => {
    const broken = { query: () => Promise.reject(new Error("connection lost")) };
    await expect(queryEventMetrics(broken, randomUUID(), parseMetricsWindow({}))).rejects.toThrow("connection lost");
    const failed = otel.spansNamed("a2a.metrics.query").at(-1);
    expect(failed?.status.code).toBe(2); // ERROR
    expect(failed?.events[0]?.name).toBe("exception");
  });
});
