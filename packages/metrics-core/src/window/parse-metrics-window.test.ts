import { describe, expect, it } from "vitest";
import { isMetricsWindowError, MetricsWindowError, metricsWindowProblem } from "./metrics-window-error.js";
import { parseMetricsWindow } from "./parse-metrics-window.js";

function iso(query: Parameters<typeof parseMetricsWindow>[0]) {
  const { start, end } = parseMetricsWindow(query);
  return { start: start?.toISOString() ?? null, end: end?.toISOString() ?? null };
}

/** The window error `query` is refused with (the test fails if it is accepted or fails otherwise). */
function errorOf(query: Parameters<typeof parseMetricsWindow>[0]): MetricsWindowError {
  let thrown: unknown;
  try {
    parseMetricsWindow(query);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(MetricsWindowError);
  return thrown as MetricsWindowError;
}

describe("parseMetricsWindow: accepted bounds", () => {
  it.each([
    ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T00:00:00z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01t10:20:30Z", "2026-01-01T10:20:30.000Z"],
    ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T05:30:00+05:30", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T05:30:00+0530", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T05:00:00+05", "2026-01-01T00:00:00.000Z"],
    ["2025-12-31T16:00:00-08:00", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T00:00:00-00:00", "2026-01-01T00:00:00.000Z"],
    // No offset: UTC.
    ["2026-01-01T12:34:56", "2026-01-01T12:34:56.000Z"],
    ["2026-01-01T12:34", "2026-01-01T12:34:00.000Z"],
    ["2026-01-01 12:34:56Z", "2026-01-01T12:34:56.000Z"],
    // Date only: midnight UTC.
    ["2026-01-01", "2026-01-01T00:00:00.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["2000-02-29", "2000-02-29T00:00:00.000Z"],
    // Fractions: up to 9 digits, truncated to milliseconds; comma allowed as in ISO-8601.
    ["2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.500Z"],
    ["2026-01-01T00:00:00.123456789Z", "2026-01-01T00:00:00.123Z"],
    ["2026-01-01T00:00:00,25Z", "2026-01-01T00:00:00.250Z"],
    // An unencoded "+" in a query string arrives as a space.
    ["2026-01-01T05:30:00 05:30", "2026-01-01T00:00:00.000Z"],
    // Very old and far-future bounds.
    ["0001-01-01", "0001-01-01T00:00:00.000Z"],
    ["0099-06-15T00:00:00Z", "0099-06-15T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"],
    ["1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"],
  ])("start_timestamp=%s → %s", (value, expected) => {
    expect(iso({ start_timestamp: value }).start).toBe(expected);
  });

  it("offsets move the instant across the UTC date line", () => {
    expect(iso({ start_timestamp: "2026-01-01T02:00:00+05:30" }).start).toBe("2025-12-31T20:30:00.000Z");
    expect(iso({ end_timestamp: "2026-01-01T20:00:00-08:00" }).end).toBe("2026-01-02T04:00:00.000Z");
  });

  it("absent bounds are null (open window)", () => {
    expect(iso({})).toEqual({ start: null, end: null });
    expect(iso({ start_timestamp: undefined, end_timestamp: null })).toEqual({ start: null, end: null });
    expect(iso({ start_timestamp: "2026-01-01" })).toEqual({ start: "2026-01-01T00:00:00.000Z", end: null });
    expect(iso({ end_timestamp: "2026-01-01" })).toEqual({ start: null, end: "2026-01-01T00:00:00.000Z" });
  });

  it("reads URLSearchParams", () => {
    const params = new URLSearchParams("start_timestamp=2026-01-01&end_timestamp=2026-01-02T00%3A00%3A00%2B05%3A30");
    expect(iso(params)).toEqual({ start: "2026-01-01T00:00:00.000Z", end: "2026-01-01T18:30:00.000Z" });
    // An unencoded + decodes to a space and still means +.
    expect(iso(new URLSearchParams("start_timestamp=2026-01-01T05:30:00+05:30")).start).toBe(
      "2026-01-01T00:00:00.000Z",
    );
  });

  it("accepts a window one millisecond wide", () => {
    expect(iso({ start_timestamp: "2026-01-01T00:00:00.000Z", end_timestamp: "2026-01-01T00:00:00.001Z" })).toEqual({
      start: "2026-01-01T00:00:00.000Z",
      end: "2026-01-01T00:00:00.001Z",
    });
  });

  it("compares instants, not strings: the same instant with different offsets is start = end", () => {
    const error = errorOf({ start_timestamp: "2026-01-01T05:30:00+05:30", end_timestamp: "2026-01-01T00:00:00Z" });
    expect(error.reason).toBe("start_not_before_end");
  });
});

describe("parseMetricsWindow: refused bounds", () => {
  it.each([
    ["garbage", "invalid_format"],
    ["yesterday", "invalid_format"],
    ["1735689600", "invalid_format"],
    ["2026-1-1", "invalid_format"],
    ["20260101", "invalid_format"],
    ["2026-01-01T", "invalid_format"],
    ["2026-01-01T10", "invalid_format"],
    ["2026-01-01T10:00:00.Z", "invalid_format"],
    ["2026-01-01T10:00:00.1234567890Z", "invalid_format"],
    [" 2026-01-01", "invalid_format"],
    ["2026-01-01 ", "invalid_format"],
    ["2026-01-01T00:00:00+5:30", "invalid_format"],
    ["2026-01-01T00:00:00Z+01:00", "invalid_format"],
    ["2026-01-01T00:00:00 Z", "invalid_format"],
    ["+002026-01-01T00:00:00Z", "invalid_format"],
    ["12026-01-01", "invalid_format"],
    ["Thu, 01 Jan 2026 00:00:00 GMT", "invalid_format"],
    ["2025-02-29", "invalid_value"],
    ["2025-02-30", "invalid_value"],
    ["1900-02-29", "invalid_value"],
    ["2026-04-31", "invalid_value"],
    ["2026-00-10", "invalid_value"],
    ["2026-13-01", "invalid_value"],
    ["2026-01-00", "invalid_value"],
    ["2026-01-32", "invalid_value"],
    ["2026-01-01T25:00:00Z", "invalid_value"],
    ["2026-01-01T24:00:00Z", "invalid_value"],
    ["2026-01-01T10:60:00Z", "invalid_value"],
    ["2026-01-01T10:00:60Z", "invalid_value"],
    ["2026-01-01T00:00:00+24:00", "invalid_value"],
    ["2026-01-01T00:00:00+05:60", "invalid_value"],
    ["0000-01-01", "out_of_range"],
    ["0001-01-01T00:00:00+00:01", "out_of_range"],
    ["9999-12-31T23:00:00-01:00", "out_of_range"],
  ])("start_timestamp=%j is refused as %s", (value, reason) => {
    const error = errorOf({ start_timestamp: value });
    expect(error.reason).toBe(reason);
    expect(error.parameter).toBe("start_timestamp");
    expect(error.message).toContain("start_timestamp");
  });

  it("names end_timestamp when that is the bad one", () => {
    const error = errorOf({ start_timestamp: "2026-01-01", end_timestamp: "2026-02-30" });
    expect(error.parameter).toBe("end_timestamp");
    expect(error.reason).toBe("invalid_value");
    expect(error.message).toMatch(/end_timestamp "2026-02-30" is not a calendar date/);
  });

  it("refuses an empty value instead of treating it as absent", () => {
    expect(errorOf({ end_timestamp: "" })).toMatchObject({ parameter: "end_timestamp", reason: "empty" });
    expect(errorOf(new URLSearchParams("start_timestamp="))).toMatchObject({
      parameter: "start_timestamp",
      reason: "empty",
    });
  });

  it("refuses repeated parameters", () => {
    expect(errorOf({ start_timestamp: ["2026-01-01", "2026-01-02"] })).toMatchObject({
      parameter: "start_timestamp",
      reason: "repeated",
    });
    expect(errorOf(new URLSearchParams("end_timestamp=2026-01-01&end_timestamp=2026-01-02"))).toMatchObject({
      parameter: "end_timestamp",
      reason: "repeated",
    });
  });

  it("refuses non-string values (qs nested objects, numbers)", () => {
    expect(errorOf({ start_timestamp: { gt: "2026-01-01" } })).toMatchObject({ reason: "not_a_string" });
    expect(errorOf({ end_timestamp: 1735689600 })).toMatchObject({ reason: "not_a_string" });
  });

  it("refuses start = end and start > end naming start_timestamp, the bound to move", () => {
    for (const query of [
      { start_timestamp: "2026-01-01", end_timestamp: "2026-01-01T00:00:00Z" },
      { start_timestamp: "2026-01-02", end_timestamp: "2026-01-01" },
    ]) {
      const error = errorOf(query);
      expect(error.parameter).toBe("start_timestamp");
      expect(error.reason).toBe("start_not_before_end");
      expect(error.message).toMatch(/start_timestamp .* must be earlier than end_timestamp/);
    }
  });

  it("keeps huge input out of the message", () => {
    const error = errorOf({ start_timestamp: "x".repeat(10_000) });
    expect(error.message.length).toBeLessThan(300);
  });

  it("errors are recognisable by brand and map to a problem+json body", () => {
    const error = errorOf({ start_timestamp: "nope" });
    expect(isMetricsWindowError(error)).toBe(true);
    expect(isMetricsWindowError(new Error("nope"))).toBe(false);
    expect(isMetricsWindowError(null)).toBe(false);
    expect(metricsWindowProblem(error)).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: error.message,
      parameter: "start_timestamp",
      reason: "invalid_format",
    });
  });
});
