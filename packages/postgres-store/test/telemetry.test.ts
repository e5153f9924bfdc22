import { randomUUID } from "node:crypto";
import {
  type A2AHandler,
  createA2AHandler,
  decodeSseStream,
  type TaskExecutor,
  toFetchHandler,
} from "@a2a-partner/a2a-core";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { installTestTelemetry } from "@a2a-partner/test-support/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStores } from "../src/index.js";
import { type MigratedBackend, openMigratedBackend } from "./support/migrated-backend.js";

// Registered before any handler or store exists, as an application registers its SDK first.
const otel = installTestTelemetry();
afterAll(() => otel.shutdown());

// In CI the PostgreSQL run is mandatory: an unreachable server fails the suite instead of skipping it.
const postgresReachable = await postgresAvailable();

/** Two progress steps and an artifact the task ends with (stored with `finished`, in one commit). */
const executor: TaskExecutor = {
  async execute({ emit, signal }) {
    for (const step of [1, 2]) {
      if (signal.aborted) return { state: "TASK_STATE_FAILED" };
      await emit({ kind: "status", message: `step ${step}` });
    }
    return {
      state: "TASK_STATE_COMPLETED",
      message: "Done",
      artifacts: [{ artifact: { artifactId: "report", parts: [{ text: "ok" }] }, lastChunk: true }],
    };
  },
};

/** Waits (never settles on its own) until the test aborts the task. */
const waitingExecutor: TaskExecutor = {
  execute: ({ signal }) =>
    new Promise((resolve) =>
      signal.addEventListener("abort", () => resolve({ state: "TASK_STATE_FAILED" }), { once: true }),
    ),
};

describe.each([
  ["PGlite", "pglite" as const],
  ["PostgreSQL", "postgres" as const],
])("telemetry on %s", (_label, kind) => {
  let backend: MigratedBackend;
  let workspaceId: string;
  const handlers: A2AHandler[] = [];

  beforeAll(async () => {
    if (kind === "postgres" && !postgresReachable) return;
    backend = await openMigratedBackend(kind, "otel_test");
    workspaceId = randomUUID();
  });
  afterAll(async () => {
    for (const handler of handlers.splice(0)) await handler.close({ graceMs: 0 });
    await backend?.drop();
  });

  function makeHandler(run: TaskExecutor) {
    const stores = createPostgresStores(backend.db);
    const handler = createA2AHandler({
      stores,
      executor: run,
      authenticate: async () => ({ ok: true, workspaceId }),
      recoveryIntervalMs: 0,
    });
    handlers.push(handler);
    const fetch = toFetchHandler(handler);
    return (method: string, params: unknown) =>
      fetch(
        new Request("http://test/a2a", {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer t" },
          body: JSON.stringify({ jsonrpc: "2.0", id: "1", method, params }),
        }),
      );
  }

  const start = { message: { role: "user", parts: [{ kind: "text", text: "go" }] }, metadata: { storeId: "s-1" } };

  it.skipIf(kind === "postgres" && !postgresReachable)(
    "a task start: request span with the task id, the start's write under it, commits linked to the task, batch sizes",
    async () => {
      const rpc = makeHandler(executor);
      const commitsBefore = await otel.count("a2a.store.commit.duration", { "a2a.store.write": "group_commit" });
      const res = await rpc("SendStreamingMessage", start);
      const events: string[] = [];
      let taskId = "";
      for await (const frame of decodeSseStream(res.body as ReadableStream<Uint8Array>)) {
        events.push(frame.event);
        if (frame.event === "task") taskId = JSON.parse(frame.data).result.id;
      }
      expect(events).toEqual(["task", "update", "update", "update", "finished", "final"]);

      const request = otel.spansNamed("SendStreamingMessage").find((s) => s.attributes["a2a.task.id"] === taskId);
      expect(request).toBeDefined();
      const startWrite = otel.spansNamed("a2a.store.start_task").find((s) => s.attributes["a2a.task.id"] === taskId);
      expect(startWrite?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
      expect(startWrite?.attributes).toMatchObject({ "a2a.store.kind": kind, "a2a.task.created": true });

      // Every event after the first went through the group commit, each commit linking to the task's span.
      const task = otel.spansNamed("a2a.task").find((s) => s.attributes["a2a.task.id"] === taskId);
      const commits = otel
        .spansNamed("a2a.store.commit")
        .filter((s) => s.links.some((link) => link.context.spanId === task?.spanContext().spanId));
      expect(commits.length).toBe(3); // step 1, step 2, artifact + finished together
      expect(commits.map((c) => c.attributes["a2a.store.batch.events"])).toEqual([1, 1, 2]);
      for (const commit of commits) {
        expect(commit.attributes).toMatchObject({ "a2a.store.kind": kind, "a2a.store.batch.tasks": 1 });
      }
      const commitsAfter = await otel.count("a2a.store.commit.duration", { "a2a.store.write": "group_commit" });
      expect(commitsAfter - commitsBefore).toBeGreaterThanOrEqual(3);
      const batches = await otel.histogram("a2a.store.batch.size", { "a2a.store.write": "group_commit" });
      expect(batches.reduce((sum, point) => sum + (point.value.sum ?? 0), 0)).toBeGreaterThanOrEqual(4);
      expect(await otel.count("a2a.store.commit.duration", { "a2a.store.write": "start_task" })).toBeGreaterThanOrEqual(
        1,
      );
    },
  );

  it.skipIf(kind === "postgres" && !postgresReachable)(
    "a cancel from another instance: its conditional append is a span under its CancelTask request",
    async () => {
      const runner = makeHandler(waitingExecutor);
      const other = makeHandler(waitingExecutor);
      const canceledBefore = await otel.sum("a2a.tasks.ended", { "a2a.task.state": "canceled" });
      const res = await runner("SendStreamingMessage", start);
      const frames = decodeSseStream(res.body as ReadableStream<Uint8Array>)[Symbol.asyncIterator]();
      const first = await frames.next();
      const taskId = JSON.parse(first.value?.data ?? "{}").result.id as string;
      const canceled = await (await other("CancelTask", { id: taskId })).json();
      expect(canceled.result.status.state).toBe("canceled");
      const rest: string[] = [];
      for (let next = await frames.next(); !next.done; next = await frames.next()) rest.push(next.value.event);
      expect(rest).toEqual(["finished", "final"]);

      const cancel = otel.spansNamed("CancelTask").find((s) => s.attributes["a2a.task.id"] === taskId);
      const append = otel.spansNamed("a2a.store.append").find((s) => s.attributes["a2a.task.id"] === taskId);
      expect(append?.parentSpanContext?.spanId).toBe(cancel?.spanContext().spanId);
      expect(append?.attributes).toMatchObject({ "a2a.store.write": "append", "a2a.store.kind": kind });
      expect(await otel.count("a2a.store.commit.duration", { "a2a.store.write": "append" })).toBeGreaterThanOrEqual(1);
      // Counted once, by the instance whose write ended it; the runner's stream saw the end from the log.
      expect(await otel.sum("a2a.tasks.ended", { "a2a.task.state": "canceled" })).toBe(canceledBefore + 1);
      const stream = otel.spansNamed("a2a.stream").find((s) => s.attributes["a2a.task.id"] === taskId);
      expect(stream?.attributes).toMatchObject({ "a2a.stream.end_reason": "final", "a2a.stream.last_seq": 2 });
    },
  );
});
