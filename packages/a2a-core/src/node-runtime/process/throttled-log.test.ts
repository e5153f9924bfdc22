import { afterEach, expect, it, vi } from "vitest";
import { ThrottledLog } from "./throttled-log.js";

afterEach(() => {
  vi.useRealTimers();
});

it("logs a cause at once, then its count once per interval (without first-line-only fields), quiet causes afresh", () => {
  vi.useFakeTimers();
  const lines: object[] = [];
  const log = new ThrottledLog<{ kind: string; id?: string }>(
    { info: (fields) => void lines.push(fields) },
    { message: "refused", intervalMs: 1_000, causeOf: ({ kind }) => kind, firstLineOnly: ["id"] },
  );
  for (const id of ["a", "b", "c"]) log.log({ kind: "x", id });
  log.log({ kind: "y" });
  expect(lines).toEqual([
    { kind: "x", id: "a", count: 1 },
    { kind: "y", count: 1 },
  ]);
  vi.advanceTimersByTime(1_000);
  expect(lines.slice(2)).toEqual([{ kind: "x", count: 2, intervalMs: 1_000 }]);
  vi.advanceTimersByTime(2_000); // quiet: x's cause is forgotten, its next occurrence is a line at once
  log.log({ kind: "x", id: "d" });
  expect(lines.at(-1)).toEqual({ kind: "x", id: "d", count: 1 });
  log.close();
});
