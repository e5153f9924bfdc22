import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startPeriodicJob } from "./periodic-job.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("startPeriodicJob", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("runs every interval, and skips the ticks that find the previous run still at work", async () => {
    let runs = 0;
    let open = 0;
    let mostOpen = 0;
    let slow = deferred();
    const job = startPeriodicJob(
      async () => {
        runs++;
        mostOpen = Math.max(mostOpen, ++open);
        await slow.promise;
        open--;
      },
      { intervalMs: 100 },
    );
    await vi.advanceTimersByTimeAsync(99);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(500); // five ticks while the first run is still at work
    expect(runs).toBe(1);
    slow.resolve();
    slow = deferred();
    slow.resolve();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    expect(mostOpen).toBe(1);
    await job.stop();
  });

  it("hands a failed run to onError and runs again at the next tick, even when onError throws", async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const job = startPeriodicJob(
      async () => {
        runs++;
        throw new Error(`run ${runs}`);
      },
      {
        intervalMs: 50,
        onError: (error) => {
          errors.push(error);
          throw new Error("the logger is broken too");
        },
      },
    );
    await vi.advanceTimersByTimeAsync(150);
    expect(runs).toBe(3);
    expect(errors.map((error) => (error as Error).message)).toEqual(["run 1", "run 2", "run 3"]);
    await job.stop();
  });

  it("starts the first run after firstRunAfterMs", async () => {
    let runs = 0;
    const job = startPeriodicJob(async () => void runs++, { intervalMs: 1_000, firstRunAfterMs: 10 });
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await job.stop();
  });

  it("stop aborts the run's signal, waits for it, and no run follows", async () => {
    let runs = 0;
    let sawAbort = false;
    const job = startPeriodicJob(
      async (signal) => {
        runs++;
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        await Promise.resolve();
        sawAbort = true;
      },
      { intervalMs: 10 },
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(1);
    await job.stop();
    expect(sawAbort).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
  });

  it("ends by itself once stopWhen says so", async () => {
    let runs = 0;
    let closed = false;
    const job = startPeriodicJob(async () => void runs++, { intervalMs: 10, stopWhen: () => closed });
    await vi.advanceTimersByTimeAsync(20);
    expect(runs).toBe(2);
    closed = true;
    await vi.advanceTimersByTimeAsync(10);
    closed = false; // reopened or not: the schedule has ended
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    await job.stop();
  });
});
