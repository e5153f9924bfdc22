import { describe, expect, it } from "vitest";
import { DataDirectoryLockedError, type LockHolder } from "./data-directory-lock.js";
import { retryWhileLocked } from "./retry-while-locked.js";

const holder = (owner: string): LockHolder => ({ pid: 7, owner, hostname: "here", since: "2026-01-01T00:00:00Z" });
const locked = (owner: string) => new DataDirectoryLockedError("/data", "/data/a2a-store.lock", holder(owner));

/** An attempt refused `refusals` times by `owner`'s lock, then answering "opened". */
function attemptRefused(refusals: number, owner = "cli seed") {
  const calls = { count: 0 };
  const attempt = async () => {
    calls.count += 1;
    if (calls.count <= refusals) throw locked(owner);
    return "opened";
  };
  return { attempt, calls };
}

describe("retryWhileLocked", () => {
  it("tries again while a holder it waits for has the lock, telling onWait once", async () => {
    const { attempt, calls } = attemptRefused(3);
    const waits: string[] = [];
    const result = await retryWhileLocked(attempt, {
      waitFor: (h) => h.owner.startsWith("cli "),
      timeoutMs: 5_000,
      retryMs: 1,
      onWait: (h) => waits.push(h.owner),
    });
    expect(result).toBe("opened");
    expect(calls.count).toBe(4);
    expect(waits).toEqual(["cli seed"]);
  });

  it("throws at once for a holder it does not wait for, and for any other error", async () => {
    const { attempt, calls } = attemptRefused(1, "server");
    const options = { waitFor: (h: LockHolder) => h.owner !== "server", timeoutMs: 5_000, retryMs: 1 };
    await expect(retryWhileLocked(attempt, options)).rejects.toBeInstanceOf(DataDirectoryLockedError);
    expect(calls.count).toBe(1);
    await expect(retryWhileLocked(() => Promise.reject(new Error("disk full")), options)).rejects.toThrow("disk full");
  });

  it("gives up once the time is up, throwing the last refusal", async () => {
    const { attempt } = attemptRefused(Number.POSITIVE_INFINITY);
    const started = Date.now();
    await expect(retryWhileLocked(attempt, { waitFor: () => true, timeoutMs: 50, retryMs: 5 })).rejects.toThrow(
      /in use by cli seed/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });
});
