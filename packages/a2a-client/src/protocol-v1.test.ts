import { toV1Error } from "@a2a-partner/a2a-core/protocol";
import { http } from "msw";
import { describe, expect, it } from "vitest";
import {
  agentCard,
  BASE_URL,
  ENDPOINT,
  finished,
  jsonRpcErrorResponse,
  jsonRpcResultResponse,
  progress,
  sseResponse,
  task,
  toV1StreamResult,
  toV1Task,
} from "../test/support/fixtures.js";
import { mockEndpoint, testClient } from "../test/support/mock-endpoint.js";
import { InvalidParamsError, TaskNotCancelableError, TaskNotFoundError } from "./index.js";
import type { TaskStreamEvent } from "./stream/events.js";

// The v1.0 payloads are written with the server's own mapping (a2a-core's toV1*), as the reference server does.
const { server, script } = mockEndpoint();

function v1Frame(id: number, event: string, result: Parameters<typeof toV1StreamResult>[0]): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "rpc-1", result: toV1StreamResult(result) })}\n\n`;
}

function v1TaskFrames(taskId = "task-1"): string[] {
  return [
    v1Frame(1, "task", task(taskId)),
    v1Frame(2, "update", progress(taskId, 1, 2)),
    v1Frame(3, "update", progress(taskId, 2, 2)),
    v1Frame(4, "finished", finished(taskId)),
    v1Frame(4, "final", task(taskId, "completed")),
  ];
}

function v1Error(code: number, message: string, data?: Record<string, unknown>): Response {
  return jsonRpcErrorResponse(code, message, 200, toV1Error({ code, message, ...(data ? { data } : {}) }).data);
}

async function collect(stream: AsyncIterable<TaskStreamEvent>): Promise<TaskStreamEvent[]> {
  const events: TaskStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function serveCard(version: string) {
  server.use(http.get(`${BASE_URL}/.well-known/agent-card.json`, () => Response.json(agentCard(ENDPOINT, version))));
}

describe("choosing the dialect", () => {
  it("speaks v1.0 after discover() when the card offers the endpoint with protocolVersion 1.0", async () => {
    serveCard("1.0");
    const seen = script(() => jsonRpcResultResponse(toV1Task(task("task-1", "working"))));
    const { client } = testClient();
    expect(client.protocolVersion).toBe("0.3");
    await client.discover();
    expect(client.protocolVersion).toBe("1.0");
    // The v1.0 answer (TASK_STATE_WORKING, ROLE_USER, parts without kind) comes back as the same Task.
    expect(await client.getTask("task-1")).toEqual(task("task-1", "working"));
    expect(seen[0]?.headers.get("a2a-version")).toBe("1.0");
  });

  it("stays on v0.3 when the card offers only 0.3, and when the caller forces 0.3", async () => {
    serveCard("0.3");
    const seen = script(() => jsonRpcResultResponse(task()));
    const { client } = testClient();
    await client.discover();
    expect(client.protocolVersion).toBe("0.3");
    await client.getTask("task-1");
    expect(seen[0]?.headers.has("a2a-version")).toBe(false);

    serveCard("1.0");
    const forced = testClient({ protocolVersion: "0.3" }).client;
    await forced.discover();
    expect(forced.protocolVersion).toBe("0.3");
  });

  it("does not take 1.0 from an interface whose url is another endpoint", async () => {
    server.use(
      http.get(`${BASE_URL}/.well-known/agent-card.json`, () =>
        Response.json({
          ...agentCard(ENDPOINT),
          supportedInterfaces: [
            { url: ENDPOINT, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
            { url: `${BASE_URL}/v1/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          ],
        }),
      ),
    );
    const { client } = testClient();
    await client.discover();
    expect(client.endpoint).toBe(ENDPOINT);
    expect(client.protocolVersion).toBe("0.3");
  });

  it("refuses an unknown protocolVersion option", () => {
    expect(() => testClient({ protocolVersion: "2.0" as "1.0" })).toThrow(TypeError);
  });
});

describe("v1.0 requests and results", () => {
  it("sends the message in the v1.0 shape and yields the same events as in v0.3", async () => {
    const seen = script(() => sseResponse(v1TaskFrames()));
    const { client } = testClient({ protocolVersion: "1.0" });
    const events = await collect(client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" }));

    expect(seen[0]?.headers.get("a2a-version")).toBe("1.0");
    expect(seen[0]?.params.message).toMatchObject({ role: "ROLE_USER", parts: [{ text: "Restock aisle 5" }] });
    const sent = seen[0]?.params.message as { parts: object[] };
    expect(sent.parts[0]).not.toHaveProperty("kind");
    expect(seen[0]?.params.metadata).toEqual({ storeId: "store-001" });
    expect(events).toEqual([
      { type: "task", eventId: "1", task: task("task-1") },
      { type: "update", eventId: "2", update: progress("task-1", 1, 2) },
      { type: "update", eventId: "3", update: progress("task-1", 2, 2) },
      { type: "finished", eventId: "4", update: finished("task-1"), state: "completed" },
    ]);
  });

  it("resumes a dropped v1.0 stream with SubscribeToTask and Last-Event-ID, every event once", async () => {
    const frames = v1TaskFrames();
    const seen = script((n) =>
      n === 0
        ? sseResponse(frames.slice(0, 2), "error")
        : sseResponse([v1Frame(1, "task", task("task-1")), ...frames.slice(2)]),
    );
    const { client, retries } = testClient({ protocolVersion: "1.0" });
    const events = await collect(client.sendStreamingMessage({ text: "x", storeId: "s" }));

    expect(events.map((e) => `${e.type}:${e.eventId}`)).toEqual(["task:1", "update:2", "update:3", "finished:4"]);
    expect(seen.map((r) => r.method)).toEqual(["SendStreamingMessage", "SubscribeToTask"]);
    expect(seen[1]?.headers.get("last-event-id")).toBe("2");
    expect(seen[1]?.headers.get("a2a-version")).toBe("1.0");
    expect(retries).toMatchObject([{ kind: "resume", attempt: 1 }]);
  });

  it("lists tasks with a v1.0 state filter and maps the page back", async () => {
    const listed = { ...task("task-9", "working"), artifacts: undefined };
    const seen = script(() =>
      jsonRpcResultResponse({
        tasks: [toV1Task(task("task-9", "working"), { omitArtifacts: true })],
        nextPageToken: "",
        pageSize: 1,
        totalSize: 1,
      }),
    );
    const page = await testClient({ protocolVersion: "1.0" }).client.listTasks({ status: "working", pageSize: 1 });
    expect(seen[0]?.params).toEqual({ status: "TASK_STATE_WORKING", pageSize: 1 });
    const { artifacts: _omitted, ...expected } = listed;
    expect(page.tasks).toEqual([expected]);
    expect(page.tasks[0]).not.toHaveProperty("artifacts");
  });

  it("reads v1.0 error details (ErrorInfo, BadRequest) back into the typed errors' data", async () => {
    const { client } = testClient({ protocolVersion: "1.0" });
    script(() => v1Error(-32001, "Task not found", { taskId: "nope" }));
    await expect(client.getTask("nope")).rejects.toMatchObject({
      constructor: TaskNotFoundError,
      data: { taskId: "nope" },
    });

    script(() => v1Error(-32002, "Task cannot be canceled", { state: "completed" }));
    const error = await client.cancelTask("task-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotCancelableError);
    expect((error as TaskNotCancelableError).data).toEqual({ state: "completed" });

    script(() =>
      v1Error(-32602, "Invalid params", {
        issues: [{ field: "params.pageSize", message: "must be between 1 and 100" }],
      }),
    );
    await expect(client.listTasks({ contextId: "c" })).rejects.toMatchObject({
      constructor: InvalidParamsError,
      data: { issues: [{ field: "params.pageSize", message: "must be between 1 and 100" }] },
    });
  });

  it("treats a retried v1.0 cancel that finds the task canceled as success", async () => {
    const seen = script((n) => {
      if (n === 0) return jsonRpcErrorResponse(-32603, "busy", 503);
      if (n === 1) return v1Error(-32002, "Task cannot be canceled", { state: "canceled" });
      return jsonRpcResultResponse(toV1Task(task("task-1", "canceled")));
    });
    const canceled = await testClient({ protocolVersion: "1.0" }).client.cancelTask("task-1");
    expect(canceled.status.state).toBe("canceled");
    expect(seen.map((r) => r.method)).toEqual(["CancelTask", "CancelTask", "GetTask"]);
  });
});
