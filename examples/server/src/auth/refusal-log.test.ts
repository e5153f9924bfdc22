import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RefusalLog } from "./refusal-log.ts";

// Every refused credential used to be a line: 300 made-up tokens, 300 lines (a log flood anyone can cause).
describe("RefusalLog", () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = { info: (fields: object, msg: string) => void lines.push({ ...fields, msg }) };
  let log: RefusalLog;
  beforeEach(() => {
    vi.useFakeTimers();
    lines.length = 0;
    log = new RefusalLog(logger as never, 60_000);
  });
  afterEach(() => {
    log.close();
    vi.useRealTimers();
  });

  const unknown = { endpoint: "a2a", status: 401, reason: "unknown, revoked or expired token" } as const;

  it("logs a cause's first refusal at once, then one line per interval with the count", () => {
    for (let i = 0; i < 300; i++) log.refused(unknown);
    expect(lines).toEqual([{ ...unknown, count: 1, msg: "authentication refused" }]);
    vi.advanceTimersByTime(60_000);
    expect(lines[1]).toEqual({ ...unknown, count: 299, intervalMs: 60_000, msg: "authentication refused" });
    for (let i = 0; i < 5; i++) log.refused(unknown);
    vi.advanceTimersByTime(59_999);
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(lines[2]).toMatchObject({ count: 5, intervalMs: 60_000 });
  });

  it("after a quiet interval, logs the next refusal at once again", () => {
    log.refused(unknown);
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(10 * 60_000);
    log.refused(unknown);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ count: 1 });
  });

  it("keeps causes apart (endpoint, status, reason), the first line with the token's id", () => {
    const user = { endpoint: "a2a", status: 403, reason: "user token on the partner endpoint" } as const;
    log.refused(unknown);
    log.refused({ ...user, tokenId: "t-1" });
    log.refused({ ...user, tokenId: "t-2" });
    log.refused({ endpoint: "metrics", status: 401, reason: "unknown, revoked or expired token" });
    expect(lines.map(({ endpoint, status, tokenId }) => [endpoint, status, tokenId])).toEqual([
      ["a2a", 401, undefined],
      ["a2a", 403, "t-1"],
      ["metrics", 401, undefined],
    ]);
    vi.advanceTimersByTime(60_000);
    expect(lines.slice(3)).toEqual([{ ...user, count: 1, intervalMs: 60_000, msg: "authentication refused" }]);
  });
});
