import { describe, expect, it } from "vitest";
import { MAX_DURATION_SECONDS, parseDuration } from "./duration.ts";

describe("parseDuration", () => {
  it.each([
    ["30d", 30 * 86_400],
    ["12h", 12 * 3600],
    ["90m", 5400],
    ["2w", 14 * 86_400],
    ["45s", 45],
    [" 1d ", 86_400],
  ])("%s is %i seconds", (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(["", "30", "0d", "1.5h", "1h30m", "-1d", "1y", "d", "3650d1", `${MAX_DURATION_SECONDS + 1}s`])(
    "refuses %j",
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});
