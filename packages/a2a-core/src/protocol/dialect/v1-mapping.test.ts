import { describe, expect, it } from "vitest";
import type { Task, TaskUpdateResult } from "../schemas/a2a.js";
import { fromV1Error, toV1Error } from "./v1-errors.js";
import { fromV1StreamResult, fromV1Task, toV1StreamResult, toV1Task } from "./v1-mapping.js";

const task: Task = {
  kind: "task",
  id: "task-1",
  contextId: "ctx-1",
  status: {
    state: "input-required",
    timestamp: "2025-01-01T00:00:00.000Z",
    message: { kind: "message", role: "agent", parts: [{ kind: "data", data: { robot: "r-1" } }] },
  },
  history: [
    {
      kind: "message",
      role: "user",
      messageId: "m-1",
      parts: [
        { kind: "text", text: "Restock aisle 5" },
        { kind: "file", file: { uri: "https://x.test/a.png", mimeType: "image/png", name: "a.png" } },
        { kind: "file", file: { bytes: "AAEC" } },
      ],
    },
  ],
  artifacts: [{ artifactId: "a-1", name: "report", parts: [{ kind: "text", text: "done" }] }],
  metadata: { storeId: "store-001", messageId: "m-1" },
};

describe("fromV1* (the client's way back)", () => {
  it("undoes toV1Task: every state, role and kind of part comes back as it was", () => {
    expect(fromV1Task(toV1Task(task))).toEqual(task);
    const listed = fromV1Task(toV1Task(task, { omitArtifacts: true }));
    expect(listed).not.toHaveProperty("artifacts");
    // historyLength 0 omits history in v1.0; v0.3 has an empty list.
    expect(fromV1Task(toV1Task({ ...task, history: [] })).history).toEqual([]);
  });

  it("undoes toV1StreamResult for tasks, status and artifact updates; final follows the state", () => {
    const updates: TaskUpdateResult[] = [
      { kind: "status-update", taskId: "task-1", contextId: "ctx-1", status: task.status, final: false },
      {
        kind: "status-update",
        taskId: "task-1",
        contextId: "ctx-1",
        status: { state: "completed", timestamp: "2025-01-01T00:00:09.000Z" },
        final: true,
        metadata: { robot: "r-1" },
      },
      {
        kind: "artifact-update",
        taskId: "task-1",
        contextId: "ctx-1",
        artifact: task.artifacts[0] as Task["artifacts"][number],
        append: false,
        lastChunk: true,
      },
    ];
    for (const result of [task, ...updates]) expect(fromV1StreamResult(toV1StreamResult(result))).toEqual(result);
  });

  it("undoes toV1Error: ErrorInfo metadata and BadRequest violations become data again", () => {
    expect(fromV1Error(toV1Error({ code: -32002, message: "not cancelable", data: { state: "completed" } }))).toEqual({
      code: -32002,
      message: "not cancelable",
      data: { state: "completed" },
    });
    const invalid = {
      code: -32602,
      message: "Invalid params",
      data: { issues: [{ field: "params.id", message: "x" }] },
    };
    expect(fromV1Error(toV1Error(invalid))).toEqual(invalid);
    expect(fromV1Error({ code: -32001, message: "gone" })).toEqual({ code: -32001, message: "gone" });
    // A v0.3-shaped data object (a server that ignored the version) is kept as it is.
    expect(fromV1Error({ code: -32001, message: "gone", data: { taskId: "t" } }).data).toEqual({ taskId: "t" });
  });
});
