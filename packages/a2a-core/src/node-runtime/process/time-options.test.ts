import { describe, expect, it } from "vitest";
import { UsageError } from "./command-line.js";
import { durationOption, pastInstantOption } from "./time-options.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");

describe("durationOption", () => {
  it("reads a number and a unit as seconds", () => {
    expect(durationOption("30d", "--expires-in", "30d")).toBe(30 * 86_400);
    expect(durationOption("12h", "--expires-in", "30d")).toBe(12 * 3_600);
  });

  it("refuses anything else with a UsageError naming the option and the example", () => {
    expect(() => durationOption("forever", "--grace", "24h, or 0")).toThrow(UsageError);
    expect(() => durationOption("24", "--grace", "24h, or 0")).toThrow(
      '--grace must be a number and a unit (s, m, h, d, w), e.g. 24h, or 0; got "24"',
    );
  });
});

describe("pastInstantOption", () => {
  it("reads a duration back from now", () => {
    expect(pastInstantOption("30d", "--ended-before", NOW)).toBe(NOW - 30 * 86_400_000);
  });

  it("reads an ISO-8601 instant with a zone", () => {
    expect(pastInstantOption("2026-01-31T00:00:00Z", "--ended-before", NOW)).toBe(Date.parse("2026-01-31T00:00:00Z"));
    expect(pastInstantOption("2026-01-31T01:30+01:00", "--ended-before", NOW)).toBe(Date.parse("2026-01-31T00:30:00Z"));
  });

  it.each(["2026-01-31", "2026-01-31T00:00:00", "2026-01-31T25:00:00Z", "yesterday", "30"])(
    "refuses %s, naming the option",
    (value) => {
      expect(() => pastInstantOption(value, "--ended-before", NOW)).toThrow(
        new RegExp(`^--ended-before must be a duration .* got "${value}"$`),
      );
    },
  );
});
