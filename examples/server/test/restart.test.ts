import { ORPHANED_REASON, SHUTDOWN_REASON } from "@a2a-partner/a2a-core";
import { afterEach, describe, expect, it } from "vitest";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { LEASE_MS, leaseTestBed, SWEEP_MS } from "./support/lease-test-bed.ts";
import { rpc } from "./support/rpc.ts";
import {
  createPgliteStore,
  createPostgresStore,
  eventually,
  openStream,
  type ProcessStore,
  type ServerProcess,
  type StreamRecorder,
  statusText,
  stopAllServerProcesses,
  type TimedFrame,
} from "./support/server-process.ts";

// A restart (crash or graceful) of the real server process in the middle of a task never leaves
// the task working forever, and its stream can be reattached with nothing lost.

const TERMINAL = new Set(["completed", "failed", "canceled", "rejected"]);

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe.each(backends)("a real server process on %s, stopped mid-task", (backend) => {
  const bed = leaseTestBed<ProcessStore>(backend === "pglite" ? createPgliteStore : createPostgresStore);
  afterEach(() => stopAllServerProcesses());
  const serve = (env: Record<string, string> = {}) => bed.serve({ SHUTDOWN_GRACE_MS: "200", ...env });
  const start = (server: ServerProcess, text: string) => bed.start(server, text);

  const updates = (n: number) => (_f: TimedFrame, all: TimedFrame[]) =>
    all.filter((f) => f.event === "update").length >= n;

  /** Everything after the `task` frame (Last-Event-ID 1), read to the end. */
  async function replay(server: ServerProcess, taskId: string, lastEventId = "1") {
    const stream = await openStream(
      server.a2aUrl,
      bed.token,
      "SubscribeToTask",
      { id: taskId },
      {
        "Last-Event-ID": lastEventId,
      },
    );
    const end = await stream.done;
    expect(end.error).toBeUndefined();
    return stream.frames;
  }

  function expectCompleteLog(frames: TimedFrame[]) {
    // task (id 1), the logged events 2..n each once, finished (n) and final (n).
    expect(frames[0]?.event).toBe("task");
    expect(frames.at(-2)?.event).toBe("finished");
    expect(frames.at(-1)?.event).toBe("final");
    expect(frames.filter((f) => f.event === "finished")).toHaveLength(1);
    const ids = frames.slice(0, -1).map((f) => Number(f.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  }

  it("SIGKILL: the next process ends the task failed (orphaned) within lease + sweep, and replays all", async () => {
    const first = await serve();
    const stream = await start(first, "Restock aisle 5");
    await stream.until(updates(2));
    const seen = [...stream.frames];
    const taskId = seen[0]?.result.id as string;

    const killedAt = performance.now();
    expect((await first.kill("SIGKILL")).signal).toBe("SIGKILL");
    // The connection broke: no clean end, no terminal frame.
    expect((await stream.done).error).toBeDefined();
    expect(stream.frames.some((f) => f.event === "finished")).toBe(false);

    // Same data: for PGlite the data directory, killed while open with tasks running, must reopen.
    const second = await serve();
    const task = await eventually(
      async () => {
        const { body } = await rpc(second.a2aUrl, bed.token, "GetTask", { id: taskId });
        return TERMINAL.has(body.result?.status?.state) ? body.result : undefined;
      },
      { timeoutMs: LEASE_MS + SWEEP_MS + 5_000, intervalMs: 50, what: "the orphaned task to end" },
    );
    const endedAt = performance.now();
    expect(task.status.state).toBe("failed");
    expect(statusText(task.status)).toBe(ORPHANED_REASON);
    // The lease runs out at most LEASE_MS after the kill; the new process sweeps at start and every SWEEP_MS.
    expect(endedAt - Math.max(second.readyAt, killedAt + LEASE_MS)).toBeLessThan(SWEEP_MS + 1_000);

    // A plain reattach of the terminal task: task → finished(failed) → final.
    const plain = await openStream(second.a2aUrl, bed.token, "SubscribeToTask", { id: taskId });
    expect((await plain.done).error).toBeUndefined();
    expect(plain.frames.map((f) => f.event)).toEqual(["task", "finished", "final"]);
    expect(plain.frames[1]?.result).toMatchObject({ final: true, status: { state: "failed" } });
    expect(plain.frames[2]?.result).toMatchObject({ id: taskId, status: { state: "failed" } });

    // The full replay holds every event the client saw before the kill, unchanged, then the failure.
    const all = await replay(second, taskId);
    expectCompleteLog(all);
    for (const frame of seen.slice(1)) {
      expect(all.find((f) => f.id === frame.id)).toMatchObject({ event: frame.event, result: frame.result });
    }
    expect(all.at(-2)?.result).toMatchObject({ status: { state: "failed" }, metadata: { reason: "orphaned" } });
    expect(statusText(all.at(-2)?.result.status)).toBe(ORPHANED_REASON);
  });

  it("SIGTERM: open streams end cleanly, a task outliving the grace ends failed, the next process reattaches", async () => {
    const first = await serve({ SHUTDOWN_GRACE_MS: "200" });
    const stream = await start(first, "Restock aisle 6");
    await stream.until(updates(1));
    const termAt = performance.now();
    const exit = await first.kill("SIGTERM");
    expect(exit.code, first.log()).toBe(0);

    const end = await stream.done;
    expect(end.error).toBeUndefined(); // a clean end of the response, not a broken connection
    expect(end.at - termAt).toBeLessThan(1_000);
    const seen = stream.frames;
    const taskId = seen[0]?.result.id as string;

    const second = await serve();
    const { body } = await rpc(second.a2aUrl, bed.token, "GetTask", { id: taskId });
    expect(body.result.status.state).toBe("failed");
    expect(statusText(body.result.status)).toBe(SHUTDOWN_REASON);

    // Resuming after the last frame seen: each event exactly once across the two connections.
    const rest = await replay(second, taskId, seen.at(-1)?.id);
    expect(rest[0]?.event).toBe("task");
    expectCompleteLog([...seen, ...rest.slice(1)]);
    expect(rest.at(-2)?.result).toMatchObject({ status: { state: "failed" }, metadata: { reason: "shutdown" } });
  });

  // How the process treats signals does not depend on the store: these two run on one backend, the last one
  // available (PostgreSQL under CI, whose server starts cost a fraction of an embedded one's).
  if (backend === backends.at(-1)) {
    it("SIGTERM twice: the second does not cut the grace short, and the process still exits 0", async () => {
      // A supervisor, or a terminal's Ctrl-C reaching both pnpm and node, can deliver the signal again.
      const first = await serve({ SHUTDOWN_GRACE_MS: "1000" });
      const stream = await start(first, "Restock aisle 6");
      await stream.until(updates(1));
      const exited = first.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 50));
      process.kill(first.pid, "SIGTERM");
      const exit = await exited;
      expect(exit, first.log()).toEqual({ code: 0, signal: null });
      expect(first.log()).toContain("already shutting down");
      await stream.done;
      const taskId = stream.frames[0]?.result.id as string;

      const second = await serve();
      const { body } = await rpc(second.a2aUrl, bed.token, "GetTask", { id: taskId });
      expect(body.result.status.state).toBe("failed");
      expect(statusText(body.result.status)).toBe(SHUTDOWN_REASON);
    });

    it("SIGTERM: a task that finishes within the grace completes; its stream was ended at once", async () => {
      const first = await serve({ SHUTDOWN_GRACE_MS: "8000" });
      const stream: StreamRecorder = await start(first, "Count inventory in aisle 7"); // three steps
      await stream.until(updates(1));
      const termAt = performance.now();
      const exited = first.kill("SIGTERM");

      // The stream does not wait for the task: it ends cleanly right away, the task goes on.
      const end = await stream.done;
      expect(end.error).toBeUndefined();
      expect(end.at - termAt).toBeLessThan(1_000);
      expect(stream.frames.some((f) => f.event === "finished")).toBe(false);

      const exit = await exited;
      expect(exit.code, first.log()).toBe(0);
      expect(performance.now() - termAt).toBeLessThan(8_000); // it left once the task was done, not after the grace

      const second = await serve();
      const taskId = stream.frames[0]?.result.id as string;
      const { body } = await rpc(second.a2aUrl, bed.token, "GetTask", { id: taskId });
      expect(body.result.status.state).toBe("completed");
      const rest = await replay(second, taskId, stream.frames.at(-1)?.id);
      expectCompleteLog([...stream.frames, ...rest.slice(1)]);
      expect(rest.some((f) => f.event === "update" && f.result.kind === "artifact-update")).toBe(true);
    });
  }
});
