import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { describe, expect, it } from "vitest";
import { pageOf } from "../src/ports/task-list.js";
import { A2A_LIMITS } from "../src/protocol/limits.js";
import { ListTasksResultV1 } from "../src/protocol/schemas/list-tasks.js";
import { ListTasksResultV03 } from "../src/protocol/v0_3/schemas.js";
import { type Harness, harnessPerTest, readFrames, ScriptedExecutor, startParams } from "./support/handler-harness.js";

const harness = harnessPerTest();

async function run(h: Harness, text: string, token = "partner-a", contextId?: string): Promise<string> {
  const params = startParams(text);
  const message = contextId ? { ...params.message, contextId } : params.message;
  const frames = await readFrames(await h.stream({ ...params, message }, { token }));
  // The next task's status time is then later than this one's: tasks listed newest first never tie on
  // the clock's millisecond (a tie is ordered by id, which no test can predict).
  const endedAt = Date.now();
  while (Date.now() <= endedAt) await new Promise((resolve) => setTimeout(resolve, 1));
  return frames[0]?.result.id as string;
}

async function list(h: Harness, params: unknown, options: { method?: string; headers?: Record<string, string> } = {}) {
  const res = await h.call(
    { jsonrpc: "2.0", id: "l", method: options.method ?? "ListTasks", params },
    options.headers ? { headers: options.headers } : {},
  );
  return (await res.json()) as { result?: LooseJson; error?: LooseJson };
}

describe("ListTasks", () => {
  it("lists the caller's workspace only, newest first, without artifacts unless asked (alias tasks/list)", async () => {
    const report = { artifactId: "report", parts: [{ text: "3 shelves" }] };
    const h = harness(
      new ScriptedExecutor(undefined, { state: "TASK_STATE_COMPLETED", artifacts: [{ artifact: report }] }),
    );
    const first = await run(h, "restock aisle 1");
    const second = await run(h, "restock aisle 2");
    await run(h, "someone else's task", "partner-b");
    const { result } = await list(h, {}, { method: "tasks/list" });
    const page = ListTasksResultV03.parse(result);
    expect(page.tasks.map((task) => task.id)).toEqual([second, first]);
    expect(page).toMatchObject({ totalSize: 2, pageSize: 2, nextPageToken: "" });
    expect(page.tasks[0]).not.toHaveProperty("artifacts");
    expect(page.tasks[0]?.status.state).toBe("completed");
    const full = ListTasksResultV03.parse((await list(h, { includeArtifacts: true, historyLength: 0 })).result);
    expect(full.tasks[0]?.artifacts).toEqual([{ artifactId: "report", parts: [{ kind: "text", text: "3 shelves" }] }]);
    expect(full.tasks[0]?.history).toEqual([]);
  });

  it("pages with an opaque token; the last page has an empty nextPageToken", async () => {
    const h = harness();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await run(h, `task ${i}`));
    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    do {
      const { result } = await list(h, { pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      seen.push(...result.tasks.map((task: { id: string }) => task.id));
      expect(result.totalSize).toBe(5);
      pageToken = result.nextPageToken;
      pages++;
    } while (pageToken !== "");
    expect(pages).toBe(3);
    expect(seen).toEqual(ids.reverse());
  });

  it("filters by contextId, status and statusTimestampAfter", async () => {
    const h = harness();
    const before = new Date(Date.now() - 60_000).toISOString();
    const inContext = await run(h, "a", "partner-a", "ctx-1");
    await run(h, "b", "partner-a", "ctx-2");
    expect((await list(h, { contextId: "ctx-1" })).result.tasks.map((t: { id: string }) => t.id)).toEqual([inContext]);
    expect((await list(h, { status: "working" })).result).toMatchObject({ tasks: [], totalSize: 0, pageSize: 0 });
    expect((await list(h, { status: "completed" })).result.totalSize).toBe(2);
    expect((await list(h, { statusTimestampAfter: before })).result.totalSize).toBe(2);
    expect((await list(h, { statusTimestampAfter: "2999-01-01T00:00:00+02:00" })).result.totalSize).toBe(0);
  });

  it("speaks v1.0 with A2A-Version: 1.0: TASK_STATE_* filters and v1.0 tasks", async () => {
    const h = harness();
    const id = await run(h, "restock");
    const { result } = await list(
      h,
      { status: "TASK_STATE_COMPLETED", tenant: "", pageToken: "" },
      { headers: { "A2A-Version": "1.0" } },
    );
    const page = ListTasksResultV1.parse(result);
    expect(page.tasks.map((task) => task.id)).toEqual([id]);
    expect(page.tasks[0]).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } });
    expect(page.tasks[0]).not.toHaveProperty("artifacts");
    const unspecified = await list(h, { status: "TASK_STATE_UNSPECIFIED" }, { headers: { "A2A-Version": "1.0" } });
    expect(unspecified.result.totalSize).toBe(1);
    const lowercase = await list(h, { status: "completed" }, { headers: { "A2A-Version": "1.0" } });
    expect(lowercase.error.code).toBe(-32602);
    expect(lowercase.error.data[0].metadata).toEqual({ field: "params.status" });
  });

  it("answers -32602 naming the parameter for every invalid value", async () => {
    const h = harness();
    const cases: Array<[unknown, string]> = [
      [{ pageSize: 0 }, "params.pageSize"],
      [{ pageSize: 101 }, "params.pageSize"],
      [{ pageSize: 2.5 }, "params.pageSize"],
      [{ pageSize: "10" }, "params.pageSize"],
      [{ historyLength: -1 }, "params.historyLength"],
      [{ status: "running" }, "params.status"],
      [{ statusTimestampAfter: "yesterday" }, "params.statusTimestampAfter"],
      [{ statusTimestampAfter: "2026-03-01T10:00:00" }, "params.statusTimestampAfter"],
      [{ includeArtifacts: "yes" }, "params.includeArtifacts"],
      [{ pageToken: "not a token!" }, "params.pageToken"],
      [{ pageToken: btoa('[1,"x","y"]') }, "params.pageToken"],
      [{ pageToken: "eyJhIjoxfQ" }, "params.pageToken"],
      [{ contextId: 5 }, "params.contextId"],
    ];
    for (const [params, field] of cases) {
      const { error } = await list(h, params);
      expect(error, JSON.stringify(params)).toMatchObject({ code: -32602, data: { field } });
    }
  });
});

describe("ListTasks' totalSize", () => {
  it("stops counting at A2A_LIMITS.listTotalSize (in memory as in the PostgreSQL store); the pages go on", () => {
    const cap = A2A_LIMITS.listTotalSize;
    const tasks = Array.from({ length: cap + 3 }, (_, i) => ({
      id: `t-${String(i).padStart(6, "0")}`,
      contextId: "ctx",
      status: { state: "TASK_STATE_WORKING" as const, timestamp: "2026-01-01T00:00:00.000Z" },
    }));
    const page = pageOf(tasks, { pageSize: 10 });
    expect(page.totalSize).toBe(cap);
    expect(page.tasks).toHaveLength(10);
    expect(page.next).toBeDefined();
    expect(pageOf(tasks.slice(0, 42), { pageSize: 10 }).totalSize).toBe(42);
  });
});
