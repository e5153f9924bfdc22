import { decodeSseStream, ORPHANED_REASON } from "@a2a-partner/a2a-core";
import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../src/auth/tokens.ts";
import { postgresAvailable } from "./support/backends.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { LEASE_MS, leaseTestBed, STEP_MS, SWEEP_MS } from "./support/lease-test-bed.ts";
import { rpc, startParams } from "./support/rpc.ts";
import {
  createPostgresStore,
  deliveryLags,
  eventually,
  openStream,
  runCli,
  type ServerProcess,
  statusText,
  type TimedFrame,
} from "./support/server-process.ts";

// Two server processes on one PostgreSQL database behave as one server. Streams
// follow the shared log (NOTIFY wake-ups), cancels reach the robots of the other process, idempotency
// holds across processes, and a dead process's task is ended by the survivor.

// Under CI postgresAvailable() is always true: the suite runs (and fails if PostgreSQL is unreachable).
describe.skipIf(!(await postgresAvailable()))("two server processes on one PostgreSQL database", () => {
  const bed = leaseTestBed(createPostgresStore);
  const { start, subscribe } = bed;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    [a, b] = await Promise.all([bed.serve(), bed.serve()]);
  });

  const isUpdate = (f: TimedFrame) => f.event === "update";

  async function nodeExecutions(taskId: string): Promise<number> {
    const { rows } = await bed.store.pool.query<{ n: number }>(
      `select count(*)::int as n from workflow_node_executions n
         join workflow_executions e on e.id = n.workflow_execution_id where e.task_id = $1`,
      [taskId],
    );
    return rows[0]?.n ?? 0;
  }

  it("follows a task started on A from B: each update reaches B within 1 s of A; GetTask on B agrees", async () => {
    const onA = await start(a, "Restock aisle 2");
    const taskId = (await onA.until((f) => f.event === "task")).result.id as string;
    const onB = await subscribe(b, taskId, "1");

    await onB.until(isUpdate);
    const polled = await rpc(b.a2aUrl, bed.token, "GetTask", { id: taskId });
    expect(polled.body.result).toMatchObject({ id: taskId, status: { state: "working" } });

    const [endA, endB] = await Promise.all([onA.done, onB.done]);
    expect(endA.error).toBeUndefined();
    expect(endB.error).toBeUndefined();
    expect(onB.frames.at(-2)?.result.status.state).toBe("completed");

    // Same events, same ids, exactly once, on both processes.
    const events = (frames: TimedFrame[]) => frames.slice(1, -1).map((f) => [f.id, f.event, f.result]);
    expect(events(onB.frames)).toEqual(events(onA.frames));
    expect(onA.frames.slice(0, -1).map((f) => Number(f.id))).toEqual(await loggedSeqs(bed.store.pool, taskId));

    // Delivery lag of the events that were appended while both streams were open. Without NOTIFY a
    // process would notice another's append only on its periodic re-read (every 5 s).
    const lags = deliveryLags(onA.frames, onB.frames);
    expect(lags.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...lags)).toBeLessThan(1_000);
  });

  it("cancels on B a task running on A: A's robots stop and A's stream ends with finished(canceled)", async () => {
    const onA = await start(a, "Restock aisle 3"); // five steps
    await onA.until(isUpdate);
    const taskId = onA.frames[0]?.result.id as string;

    const canceled = await rpc(b.a2aUrl, bed.token, "CancelTask", { id: taskId });
    expect(canceled.body.result).toMatchObject({ id: taskId, status: { state: "canceled" } });

    const end = await onA.done;
    expect(end.error).toBeUndefined();
    expect(onA.frames.map((f) => f.event).slice(-2)).toEqual(["finished", "final"]);
    expect(onA.frames.at(-2)?.result.status.state).toBe("canceled");

    // The robots on A learn of it (refused append or unrenewable lease) and record the execution canceled.
    const status = await eventually(
      async () => {
        const { rows } = await bed.store.pool.query<{ status: string }>(
          "select status from workflow_executions where task_id = $1",
          [taskId],
        );
        return rows[0]?.status === "running" ? undefined : rows[0]?.status;
      },
      { timeoutMs: 3 * STEP_MS + LEASE_MS, what: "the workflow execution to stop" },
    );
    expect(status).toBe("canceled");
    const nodes = await nodeExecutions(taskId);
    await new Promise((r) => setTimeout(r, 3 * STEP_MS));
    expect(await nodeExecutions(taskId)).toBe(nodes);
    expect(nodes).toBeLessThan(5);
  });

  /** A task started on A whose stream dropped after its first update; its events go on while nobody listens. */
  async function droppedOnA(text: string) {
    const onA = await start(a, text);
    await onA.until(isUpdate);
    onA.close();
    const seen = onA.frames.slice();
    const taskId = seen[0]?.result.id as string;
    await new Promise((r) => setTimeout(r, 2 * STEP_MS));
    return { seen, taskId };
  }

  it("reattaches on B with Last-Event-ID after a drop on A: every event once across the connections", async () => {
    const { seen, taskId } = await droppedOnA("Restock aisle 8");

    const onB = await subscribe(b, taskId, seen.at(-1)?.id);
    expect((await onB.done).error).toBeUndefined();
    expect(onB.frames[0]?.event).toBe("task");
    const delivered = [...seen, ...onB.frames.slice(1, -1)].map((f) => Number(f.id));
    expect(delivered).toEqual(await loggedSeqs(bed.store.pool, taskId));
    expect(onB.frames.at(-2)?.result.status.state).toBe("completed");
  });

  it("resumes over HTTP+JSON on B, with Last-Event-ID, a task A streamed over JSON-RPC: every event once", async () => {
    const { seen, taskId } = await droppedOnA("Restock aisle 9");

    const res = await fetch(`${b.a2aUrl}/tasks/${taskId}:subscribe`, {
      method: "POST",
      headers: { authorization: `Bearer ${bed.token}`, "last-event-id": String(seen.at(-1)?.id) },
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const onB: Array<{ id: string | undefined; event: string; data: Record<string, LooseJson> }> = [];
    for await (const event of decodeSseStream(res.body as ReadableStream<Uint8Array>)) {
      onB.push({ id: event.id, event: event.event, data: JSON.parse(event.data) });
    }
    expect(onB[0]?.data.task.id).toBe(taskId);
    const delivered = [...seen.map((f) => Number(f.id)), ...onB.slice(1, -1).map((f) => Number(f.id))];
    expect(delivered).toEqual(await loggedSeqs(bed.store.pool, taskId));
    expect(onB.at(-2)?.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("creates one task and one workflow execution for 20 concurrent starts with one messageId on A and B", async () => {
    const messageId = crypto.randomUUID();
    const streams = await Promise.all(
      Array.from({ length: 20 }, (_, i) => start(i % 2 === 0 ? a : b, "Clean the spill in aisle 4", messageId)),
    );
    const ends = await Promise.all(streams.map((s) => s.done));
    for (const end of ends) expect(end.error).toBeUndefined();
    const ids = new Set(streams.map((s) => s.frames[0]?.result.id));
    expect(ids.size).toBe(1);
    for (const s of streams) expect(s.frames.at(-2)?.result.status.state).toBe("completed");

    const tasks = await bed.store.pool.query<{ id: string }>("select id from tasks where message_id = $1", [messageId]);
    expect(tasks.rows.map((r) => r.id)).toEqual([...ids]);
    const executions = await bed.store.pool.query<{ n: number }>(
      "select count(*)::int as n from workflow_executions where task_id = $1",
      [[...ids][0]],
    );
    expect(executions.rows[0]?.n).toBe(1);
    expect(await nodeExecutions([...ids][0])).toBe(4); // the clean-spill workflow ran once, all four nodes
  });

  /** How long a committed change may take to reach every instance's caches (the NOTIFY's delivery). */
  const BROADCAST_MS = 100;

  async function soon<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    return eventually(check, { timeoutMs: BROADCAST_MS, intervalMs: 5, what });
  }

  it("refuses a revoked token on both instances as soon as the revocation commits, though both had it in memory", async () => {
    const other = (await runCli(["token", "create", "--workspace", "demo", "--kind", "partner"], bed.store.env)).stdout
      .trim()
      .split("\n")
      .at(-1) as string;
    // Both instances have resolved the token (and so remember it).
    for (const server of [a, b])
      expect((await rpc(server.a2aUrl, other, "GetTask", { id: crypto.randomUUID() })).status).toBe(200);
    // Revoked by a plain statement, as an operator in psql would: no server code runs.
    await bed.store.pool.query("update api_tokens set revoked_at = now() where token_hash = $1", [hashToken(other)]);
    for (const server of [a, b]) {
      await soon("the revoked token to be refused", async () =>
        (await rpc(server.a2aUrl, other, "GetTask", { id: crypto.randomUUID() })).status === 401 ? true : undefined,
      );
    }
    // The other token is unaffected.
    expect((await rpc(b.a2aUrl, bed.token, "GetTask", { id: crypto.randomUUID() })).status).toBe(200);
  });

  it("refuses a start for an Environment deleted after both instances used it", async () => {
    await bed.store.pool.query(
      `insert into environments (workspace_id, store_id, name)
         select id, 'store-temp', 'Temporary store' from workspaces where slug = 'demo'`,
    );
    for (const server of [a, b]) {
      const stream = await openStream(server.a2aUrl, bed.token, "SendStreamingMessage", {
        ...startParams("Restock aisle 3"),
        metadata: { storeId: "store-temp" },
      });
      await stream.until((f: TimedFrame) => f.event === "task");
      stream.close();
    }
    await bed.store.pool.query("delete from environments where store_id = 'store-temp'");
    for (const server of [a, b]) {
      const refusal = await soon("the deleted Environment to be refused", async () => {
        const res = await fetch(server.a2aUrl, {
          method: "POST",
          headers: { authorization: `Bearer ${bed.token}`, "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "SendStreamingMessage",
            params: { ...startParams("Restock aisle 3"), metadata: { storeId: "store-temp" } },
          }),
        });
        if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
          await res.body?.cancel();
          return undefined;
        }
        return res.json();
      });
      expect(refusal.error).toMatchObject({ code: -32602, data: { field: "params.metadata.storeId" } });
    }
  });

  it("keeps a task's lease through a graceful stop's grace, though the lease is shorter: B never takes it over", async () => {
    // Five robot steps (2.5 s) outlast the 1.5 s lease; stopped after the first, the task needs its grace.
    const c = await bed.serve();
    const onC = await start(c, "Restock aisle 12");
    const taskId = (await onC.until((f) => f.event === "task")).result.id as string;
    await onC.until(isUpdate);

    const exit = await c.kill("SIGTERM");
    expect(exit.code, c.log()).toBe(0);
    const polled = await rpc(b.a2aUrl, bed.token, "GetTask", { id: taskId });
    expect(polled.body.result.status.state).toBe("completed");
    expect(await nodeExecutions(taskId)).toBe(5);
  });

  // Last: it kills A.
  it("ends the task of a SIGKILLed A as failed from B within lease + sweep; B's stream sees finished", async () => {
    const onA = await start(a, "Restock aisle 11");
    const taskId = (await onA.until((f) => f.event === "task")).result.id as string;
    const onB = await subscribe(b, taskId, "1");
    await onB.until(isUpdate);

    const killedAt = performance.now();
    await a.kill("SIGKILL");
    const finished = await onB.until((f) => f.event === "finished", LEASE_MS + SWEEP_MS + 5_000);
    expect(finished.at - killedAt).toBeLessThan(LEASE_MS + SWEEP_MS + 750);
    expect(finished.result).toMatchObject({ final: true, status: { state: "failed" } });
    expect(statusText(finished.result.status)).toBe(ORPHANED_REASON);
    expect((await onB.done).error).toBeUndefined();
    expect(onB.frames.at(-1)?.event).toBe("final");

    const { body } = await rpc(b.a2aUrl, bed.token, "GetTask", { id: taskId });
    expect(body.result.status.state).toBe("failed");
  });
});
