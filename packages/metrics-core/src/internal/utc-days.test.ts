import { describe, expect, it } from "vitest";
import { splitUtcWindow, startOfUtcDay, utcDay, utcTimestampLiteral } from "./utc-days.js";

const at = (iso: string) => new Date(iso);

describe("utcDay", () => {
  it("formats the UTC calendar day whatever the host time zone", () => {
    expect(utcDay(at("2026-01-01T00:00:00Z"))).toBe("2026-01-01");
    expect(utcDay(at("2026-01-01T23:59:59.999Z"))).toBe("2026-01-01");
    expect(utcDay(at("2025-12-31T20:00:00-08:00"))).toBe("2026-01-01");
  });

  it("pads old years and lets years past 9999 grow, as PostgreSQL's to_char does", () => {
    expect(utcDay(at("0001-01-01T00:00:00Z"))).toBe("0001-01-01");
    expect(utcDay(at("0099-06-15T00:00:00Z"))).toBe("0099-06-15");
    expect(utcDay(new Date(Date.UTC(10000, 0, 1)))).toBe("10000-01-01");
  });

  it("refuses invalid dates and years before 0001", () => {
    expect(() => utcDay(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => utcDay(at("0000-06-01T00:00:00Z"))).toThrow(RangeError);
  });
});

describe("utcTimestampLiteral", () => {
  it("is ISO-8601 with a plain year, also past 9999 (toISOString would write +010000)", () => {
    expect(utcTimestampLiteral(at("2026-03-04T05:06:07.089Z"))).toBe("2026-03-04T05:06:07.089Z");
    expect(utcTimestampLiteral(at("0001-01-01T00:00:00Z"))).toBe("0001-01-01T00:00:00.000Z");
    expect(utcTimestampLiteral(new Date(Date.UTC(10000, 0, 1, 1)))).toBe("10000-01-01T01:00:00.000Z");
  });
});

describe("startOfUtcDay", () => {
  it("floors to midnight UTC, also before 1970", () => {
    expect(startOfUtcDay(at("2026-01-01T13:00:00Z")).toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(startOfUtcDay(at("1969-12-31T23:00:00Z")).toISOString()).toBe("1969-12-31T00:00:00.000Z");
  });
});

describe("splitUtcWindow", () => {
  const split = (start: string | null, end: string | null) => {
    const s = splitUtcWindow({ start: start === null ? null : at(start), end: end === null ? null : at(end) });
    const range = (r: { start: Date; end: Date } | null) =>
      r === null ? null : [r.start.toISOString(), r.end.toISOString()];
    return { head: range(s.head), days: s.days, tail: range(s.tail) };
  };

  it("an aligned window is whole days only", () => {
    expect(split("2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z")).toEqual({
      head: null,
      days: { from: "2026-01-01", to: "2026-01-04" },
      tail: null,
    });
  });

  it("an unaligned window has a partial head and tail around its whole days", () => {
    expect(split("2026-01-01T06:00:00Z", "2026-01-04T18:00:00Z")).toEqual({
      head: ["2026-01-01T06:00:00.000Z", "2026-01-02T00:00:00.000Z"],
      days: { from: "2026-01-02", to: "2026-01-04" },
      tail: ["2026-01-04T00:00:00.000Z", "2026-01-04T18:00:00.000Z"],
    });
  });

  it("adjacent partial days have no whole days between them", () => {
    expect(split("2026-01-01T06:00:00Z", "2026-01-02T18:00:00Z")).toEqual({
      head: ["2026-01-01T06:00:00.000Z", "2026-01-02T00:00:00.000Z"],
      days: null,
      tail: ["2026-01-02T00:00:00.000Z", "2026-01-02T18:00:00.000Z"],
    });
  });

  it("a window inside one day is a head only", () => {
    expect(split("2026-01-01T06:00:00Z", "2026-01-01T18:00:00Z")).toEqual({
      head: ["2026-01-01T06:00:00.000Z", "2026-01-01T18:00:00.000Z"],
      days: null,
      tail: null,
    });
  });

  it("a window from mid-day to the next midnight is a head only", () => {
    expect(split("2026-01-01T06:00:00Z", "2026-01-02T00:00:00Z")).toEqual({
      head: ["2026-01-01T06:00:00.000Z", "2026-01-02T00:00:00.000Z"],
      days: null,
      tail: null,
    });
  });

  it("open sides make the whole-day range open", () => {
    expect(split(null, null)).toEqual({ head: null, days: { from: null, to: null }, tail: null });
    expect(split("2026-01-01T06:00:00Z", null)).toEqual({
      head: ["2026-01-01T06:00:00.000Z", "2026-01-02T00:00:00.000Z"],
      days: { from: "2026-01-02", to: null },
      tail: null,
    });
    expect(split(null, "2026-01-04T18:00:00Z")).toEqual({
      head: null,
      days: { from: null, to: "2026-01-04" },
      tail: ["2026-01-04T00:00:00.000Z", "2026-01-04T18:00:00.000Z"],
    });
  });

  it("reaches the last representable day", () => {
    expect(split("9999-12-31T12:00:00Z", null)).toEqual({
      head: ["9999-12-31T12:00:00.000Z", "+010000-01-01T00:00:00.000Z"],
      days: { from: "10000-01-01", to: null },
      tail: null,
    });
  });
});
