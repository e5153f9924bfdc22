import { describe, expect, it } from "vitest";
import { MODEL_TASK } from "../model-task.fixture.js";
import type { Task, TaskEventResult } from "../schemas/a2a.js";
import { StreamResponseV1, TaskV1 } from "../schemas/a2a-v1.js";
import { fromV1Error, toV1Error } from "./v1-errors.js";
import { fromV1Status, fromV1StreamResult, fromV1Task, toV1StreamResult, toV1Task } from "./v1-wire.js";

/** The dialects' model task, and in its history a data part that is no object (v1.0 data is any JSON value). */
const task: Task = {
  ...MODEL_TASK,
  history: MODEL_TASK.history.map((message) => ({ ...message, parts: [...message.parts, { data: [1, 2] }] })),
};

describe("toV1Task", () => {
  it("writes the task as it is, in a2a.proto's key order, a valid v1.0 Task", () => {
    const written = toV1Task(task);
    expect(written).toEqual(task);
    expect(Object.keys(written)).toEqual(["id", "contextId", "status", "artifacts", "history", "metadata"]);
    expect(TaskV1.parse(written)).toEqual(task);
  });

  it("leaves out an empty history (historyLength 0) and artifacts a listing did not ask for", () => {
    expect(toV1Task({ ...task, history: [] })).not.toHaveProperty("history");
    const { artifacts: _, ...listed } = task;
    expect(toV1Task(listed)).not.toHaveProperty("artifacts");
    expect(toV1Task({ ...task, artifacts: [] })).toHaveProperty("artifacts", []);
  });
});

describe("fromV1* (the client's way back)", () => {
  it("undoes toV1Task: an omitted history reads as empty, omitted artifacts stay omitted", () => {
    expect(fromV1Task(toV1Task(task))).toEqual(task);
    expect(fromV1Task(toV1Task({ ...task, history: [] })).history).toEqual([]);
    const { artifacts: _, ...listed } = task;
    expect(fromV1Task(toV1Task(listed))).not.toHaveProperty("artifacts");
  });

  it("fills in what ProtoJSON may leave out: a timestamp as empty, metadata as {}", () => {
    expect(fromV1Status({ state: "TASK_STATE_WORKING" })).toEqual({ state: "TASK_STATE_WORKING", timestamp: "" });
    expect(fromV1Task({ id: "t", contextId: "c", status: { state: "TASK_STATE_SUBMITTED" } })).toEqual({
      id: "t",
      contextId: "c",
      status: { state: "TASK_STATE_SUBMITTED", timestamp: "" },
      history: [],
      metadata: {},
    });
  });

  it("undoes toV1StreamResult for the task, status and artifact updates", () => {
    const results: TaskEventResult[] = [
      { task },
      { task: { ...task, history: [], artifacts: [] } },
      { statusUpdate: { taskId: "task-1", contextId: "ctx-1", status: task.status } },
      {
        statusUpdate: {
          taskId: "task-1",
          contextId: "ctx-1",
          status: { state: "TASK_STATE_COMPLETED", timestamp: "2025-01-01T00:00:09.000Z" },
          metadata: { robot: "r-1" },
        },
      },
      {
        artifactUpdate: {
          taskId: "task-1",
          contextId: "ctx-1",
          artifact: task.artifacts[0] as Task["artifacts"][number],
          append: false,
          lastChunk: true,
        },
      },
    ];
    for (const result of results) {
      const wire = toV1StreamResult(result);
      expect(StreamResponseV1.safeParse(wire).success).toBe(true);
      expect(fromV1StreamResult(wire)).toEqual(result);
    }
    const started = toV1StreamResult({ task: { ...task, history: [] } });
    expect("task" in started && started.task).not.toHaveProperty("history");
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
