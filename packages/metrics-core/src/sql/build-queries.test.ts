import { describe, expect, it } from "vitest";
import { METRICS_SECTIONS, SECTION_TABLES } from "../internal/sql/sections.js";
import type { MetricsWindow } from "../window/parse-metrics-window.js";
import { buildEventMetricsQueries, buildRawEventMetricsQueries } from "./build-queries.js";

const WORKSPACE = "0b5c3f4e-8a61-4f0a-9d3e-2b7c1e6a9f10";
const window = (start: string | null, end: string | null): MetricsWindow => ({
  start: start === null ? null : new Date(start),
  end: end === null ? null : new Date(end),
});
const RAW_TABLES = METRICS_SECTIONS.map((s) => SECTION_TABLES[s].raw);

function rawTablesRead(text: string): string[] {
  return RAW_TABLES.filter((table) => new RegExp(`from ${table}\\b`).test(text));
}

describe("buildEventMetricsQueries", () => {
  it("keeps every value out of the SQL text", () => {
    const q = buildEventMetricsQueries(WORKSPACE, window("2026-01-01T06:10:00Z", "2026-01-10T18:35:00+05:30"));
    expect(q.text).not.toContain(WORKSPACE);
    expect(q.text).not.toMatch(/2026-/);
    expect(q.values).toContain(WORKSPACE);
    expect(q.values).toContain("2026-01-01T06:10:00.000Z");
    expect(q.values).toContain("2026-01-10T13:05:00.000Z");
  });

  it("shares one placeholder per value across the four sections", () => {
    const q = buildEventMetricsQueries(WORKSPACE, window("2026-01-01", "2026-02-01"));
    expect(q.values).toEqual([WORKSPACE, "2026-01-01", "2026-02-01"]);
    // Each section reads its daily rollups and its unfolded deltas.
    expect(q.text.match(/\$1::uuid/g)).toHaveLength(8);
  });

  it("reads the unfolded deltas of exactly the hours the rollup parts count, bounded at UTC", () => {
    const aligned = buildEventMetricsQueries(WORKSPACE, window("2026-01-01", "2026-02-01"));
    for (const s of METRICS_SECTIONS) {
      expect(aligned.text).toContain(
        `from ${SECTION_TABLES[s].deltas} where workspace_id = $1::uuid and ` +
          `hour_start >= ($2::date::timestamp at time zone 'UTC') and hour_start < ($3::date::timestamp at time zone 'UTC')`,
      );
    }
    // Hours 21:00 … 00:00 of the head day from the hourly rollups, then whole days: one delta range.
    const unaligned = buildEventMetricsQueries(WORKSPACE, window("2026-01-01T20:45:00Z", "2026-01-03"));
    expect(unaligned.sections.alerts.text).toContain(
      "hour_start >= ($4::timestamp at time zone 'UTC') and hour_start < ($3::date::timestamp at time zone 'UTC')",
    );
    expect(unaligned.sections.alerts.values.slice(2, 4)).toEqual(["2026-01-03", "2026-01-01T21:00:00.000"]);
    const open = buildEventMetricsQueries(WORKSPACE, window(null, null));
    expect(open.sections.telemetry.text).toMatch(
      /from metrics_deltas_telemetry_events where workspace_id = \$1::uuid\n/,
    );
    // Less than half an hour: raw rows only, no bucket, so no deltas either.
    const short = buildEventMetricsQueries(WORKSPACE, window("2026-01-01T10:10:00Z", "2026-01-01T10:20:00Z"));
    expect(short.text).not.toContain("metrics_deltas_");
  });

  it("reads only daily rollups for day-aligned and open windows", () => {
    for (const w of [window("2026-01-01", "2026-04-01"), window(null, null), window("2026-01-01", null)]) {
      const q = buildEventMetricsQueries(WORKSPACE, w);
      expect(rawTablesRead(q.text)).toEqual([]);
      expect(q.text).not.toContain("metrics_hourly_");
      for (const s of METRICS_SECTIONS) expect(q.text).toContain(`from ${SECTION_TABLES[s].rollup}`);
    }
  });

  it("reads hourly rollups for the whole hours of a partial day, as UTC wall-clock timestamps", () => {
    const q = buildEventMetricsQueries(WORKSPACE, window("2026-01-01T20:00:00Z", null));
    expect(rawTablesRead(q.text)).toEqual([]);
    for (const s of METRICS_SECTIONS) expect(q.text).toContain(`from ${SECTION_TABLES[s].hourlyRollup}`);
    expect(q.values).toEqual([WORKSPACE, "2026-01-02", "2026-01-01T20:00:00.000", "2026-01-02T00:00:00.000"]);
  });

  it("reads raw rows only for a partial hour, with bounded time ranges", () => {
    const q = buildEventMetricsQueries(WORKSPACE, window("2026-01-01T20:45:00Z", "2026-01-03"));
    expect(rawTablesRead(q.text).sort()).toEqual([...RAW_TABLES].sort());
    expect(q.values).toEqual([
      WORKSPACE,
      "2026-01-02",
      "2026-01-03",
      "2026-01-01T21:00:00.000",
      "2026-01-02T00:00:00.000",
      "2026-01-01T20:45:00.000Z",
      "2026-01-01T21:00:00.000Z",
    ]);
  });

  it("offers each section on its own, with its own numbering", () => {
    const q = buildEventMetricsQueries(WORKSPACE, window("2026-01-01T20:10:00Z", "2026-01-03"));
    for (const section of METRICS_SECTIONS) {
      const own = q.sections[section];
      expect(own.text).toContain(`'${section}'::text as section`);
      expect(own.values[0]).toBe(WORKSPACE);
      const highest = Math.max(...[...own.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
      expect(highest).toBe(own.values.length);
    }
  });

  it("joins workflow names for the workflow sections only", () => {
    const q = buildEventMetricsQueries(WORKSPACE, window(null, null));
    expect(q.sections.workflow_executions.text).toContain("left join workflows");
    expect(q.sections.workflow_node_executions.text).toContain("left join workflows");
    expect(q.sections.telemetry.text).not.toContain("workflows");
    expect(q.sections.alerts.text).not.toContain("workflows");
  });

  it("refuses a workspace that is not a UUID and an inconsistent window", () => {
    expect(() => buildEventMetricsQueries("demo", window(null, null))).toThrow(TypeError);
    expect(() => buildEventMetricsQueries(`${WORKSPACE}'--`, window(null, null))).toThrow(TypeError);
    expect(() => buildEventMetricsQueries(WORKSPACE, window("2026-01-02", "2026-01-01"))).toThrow(RangeError);
    expect(() => buildEventMetricsQueries(WORKSPACE, { start: new Date(Number.NaN), end: null })).toThrow(TypeError);
  });
});

describe("buildRawEventMetricsQueries", () => {
  it("groups raw rows over the whole window and never touches rollups", () => {
    const q = buildRawEventMetricsQueries(WORKSPACE, window("2026-01-01", "2026-04-01"));
    expect(rawTablesRead(q.text).sort()).toEqual([...RAW_TABLES].sort());
    expect(q.text).not.toMatch(/metrics_(daily|hourly)_/);
    expect(q.values).toEqual([WORKSPACE, "2026-01-01T00:00:00.000Z", "2026-04-01T00:00:00.000Z"]);
  });

  it("drops the conditions of open sides", () => {
    expect(buildRawEventMetricsQueries(WORKSPACE, window(null, null)).values).toEqual([WORKSPACE]);
  });
});
