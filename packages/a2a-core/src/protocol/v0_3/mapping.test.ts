import { describe, expect, it } from "vitest";
import { InvalidParamsError } from "../errors.js";
import { MODEL_TASK as task } from "../model-task.fixture.js";
import { stateLabel, TASK_STATES, type TaskEventResult } from "../schemas/a2a.js";
import {
  fromV03Event,
  fromV03State,
  fromV03Task,
  readV03Message,
  toV03Event,
  toV03Message,
  toV03State,
  toV03Task,
  toV03TaskForText,
} from "./mapping.js";
import { TASK_STATES_V03, type TaskV03 } from "./schemas.js";
import { madeV03EventJson, v03EventJson, v03TaskJson } from "./v03-json.js";

/** The same task as A2A v0.3 writes it (what a v0.3 client reads, and what earlier releases stored). */
const taskV03: TaskV03 = {
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
      taskId: "task-1",
      contextId: "ctx-1",
      metadata: { source: "app" },
    },
  ],
  artifacts: [{ artifactId: "a-1", name: "report", parts: [{ kind: "text", text: "done", metadata: { lang: "en" } }] }],
  metadata: { storeId: "store-001", messageId: "m-1" },
};

describe("the v0.3 mapping of states", () => {
  it("maps every state both ways, spelled as stateLabel spells it", () => {
    expect(TASK_STATES.map(toV03State)).toEqual([...TASK_STATES_V03]);
    for (const state of TASK_STATES) {
      expect(fromV03State(toV03State(state))).toBe(state);
      expect(toV03State(state)).toBe(stateLabel(state));
    }
  });
});

describe("a task in v0.3", () => {
  it("is written with kind, lowercase states and roles, and file parts, in v0.3's key order", () => {
    const written = toV03Task(task);
    expect(written).toEqual(taskV03);
    expect(JSON.stringify(written)).toBe(JSON.stringify(taskV03));
  });

  it("reads back as the task it was made from, and a v0.3 task survives the way there and back", () => {
    expect(fromV03Task(toV03Task(task) as TaskV03)).toEqual(task);
    expect(toV03Task(fromV03Task(taskV03))).toEqual(taskV03);
  });

  it("leaves artifacts out when the view has none (ListTasks without includeArtifacts)", () => {
    const { artifacts: _, ...listed } = task;
    const written = toV03Task(listed);
    expect(written).not.toHaveProperty("artifacts");
    expect(written.history).toHaveLength(1);
  });

  it("is serialised by v03TaskJson to the very text of JSON.stringify, from any history message on", () => {
    const { artifacts: _, ...listed } = task;
    const bare = { ...task, status: { state: task.status.state, timestamp: task.status.timestamp } };
    const longer = { ...task, history: [...task.history, ...(task.status.message ? [task.status.message] : [])] };
    for (const variant of [task, listed, bare, longer]) {
      for (let from = 0; from <= variant.history.length; from++) {
        const expected = toV03Task({ ...variant, history: variant.history.slice(from) });
        expect(v03TaskJson(variant, from)).toBe(JSON.stringify(expected));
      }
    }
  });

  it("is serialised again when it changes: a new status, a message or artifact added", () => {
    const before = v03TaskJson(task);
    const working = {
      ...task,
      status: { state: "TASK_STATE_WORKING" as const, timestamp: "2025-01-01T00:00:01.000Z" },
    };
    const more = {
      ...working,
      artifacts: [...(task.artifacts ?? []), { artifactId: "a-2", parts: [{ text: "more" }] }],
    };
    expect(JSON.parse(v03TaskJson(working))).toEqual(toV03Task(working));
    expect(JSON.parse(v03TaskJson(more))).toEqual(toV03Task(more));
    expect(v03TaskJson(task)).toBe(before);
  });

  it("carries data that is no object as { value }, since v0.3 data is an object", () => {
    const message = toV03Message({ role: "ROLE_AGENT", parts: [{ data: [1, 2] }, { data: "plain" }] });
    expect(message.parts).toEqual([
      { kind: "data", data: { value: [1, 2] } },
      { kind: "data", data: { value: "plain" } },
    ]);
  });
});

describe("logged events in v0.3", () => {
  const working: TaskEventResult = {
    statusUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_WORKING", timestamp: "2025-01-01T00:00:01.000Z" },
      metadata: { percent: 50 },
    },
  };
  const completed: TaskEventResult = {
    statusUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      status: {
        state: "TASK_STATE_COMPLETED",
        message: { messageId: "m-9", role: "ROLE_AGENT", parts: [{ text: "Done" }] },
        timestamp: "2025-01-01T00:00:09.000Z",
      },
    },
  };
  const artifact: TaskEventResult = {
    artifactUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      artifact: { artifactId: "a-1", parts: [{ raw: "AAEC", mediaType: "application/pdf" }] },
      append: true,
      lastChunk: false,
    },
  };

  it("are kind-tagged, and a status update is final exactly when its state is terminal", () => {
    expect(toV03Event({ task })).toEqual(taskV03);
    expect(toV03Event(working)).toEqual({
      kind: "status-update",
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "working", timestamp: "2025-01-01T00:00:01.000Z" },
      final: false,
      metadata: { percent: 50 },
    });
    expect(toV03Event(completed)).toMatchObject({ kind: "status-update", status: { state: "completed" }, final: true });
    expect(toV03Event(artifact)).toEqual({
      kind: "artifact-update",
      taskId: "task-1",
      contextId: "ctx-1",
      artifact: { artifactId: "a-1", parts: [{ kind: "file", file: { bytes: "AAEC", mimeType: "application/pdf" } }] },
      append: true,
      lastChunk: false,
    });
  });

  it("read back as the results they were made from", () => {
    for (const result of [{ task }, working, completed, artifact]) {
      expect(fromV03Event(toV03Event(result))).toEqual(result);
    }
  });

  it("are serialised to the very text of JSON.stringify, whether or not their message's JSON was kept", () => {
    const cases = [
      { task },
      working,
      completed,
      artifact,
      { statusUpdate: { ...completed.statusUpdate, metadata: {} } },
    ];
    for (const result of cases) {
      expect(v03EventJson(structuredClone(result))).toBe(JSON.stringify(toV03Event(result)));
    }
    // The completed status's message, its JSON kept by a snapshot first, then the event made from it.
    const ended = structuredClone(completed) as Extract<TaskEventResult, { statusUpdate: unknown }>;
    v03TaskJson({ ...task, status: ended.statusUpdate.status });
    expect(v03EventJson(ended)).toBe(JSON.stringify(toV03Event(completed)));
  });

  it("are serialised once per result object", () => {
    const result: TaskEventResult = structuredClone(working);
    expect(madeV03EventJson(result)).toBeUndefined();
    const json = v03EventJson(result);
    expect(JSON.parse(json)).toEqual(toV03Event(working));
    expect(madeV03EventJson(result)).toBe(json);
    expect(madeV03EventJson(structuredClone(result))).toBeUndefined();
    // Kept out of sight: JSON and a copy of the object do not carry it.
    expect(JSON.stringify(result)).toBe(JSON.stringify(working));
    expect(madeV03EventJson({ ...result })).toBeUndefined();
  });

  it("map a message once, and a changed copy of it afresh, a frozen one every time", () => {
    const message = structuredClone(task.history[0]) as NonNullable<(typeof task.history)[0]>;
    expect(toV03Message(message)).toBe(toV03Message(message));
    expect(toV03Message({ ...message, taskId: "another" }).taskId).toBe("another");
    expect(toV03Message(message).taskId).toBe(message.taskId);
    const frozen = Object.freeze({ ...message });
    expect(toV03Message(frozen)).toEqual(toV03Message(message));
  });

  it("for a stream's snapshot frame, reuse a message's kept mapping but keep none of their own", () => {
    const fresh = structuredClone(task);
    expect(toV03TaskForText(fresh)).toEqual(toV03Task(task));
    // A running task's messages live as long as the task: a frame sent once must not leave a copy on them.
    for (const message of fresh.history) expect(Object.getOwnPropertySymbols(message)).toEqual([]);
    const kept = toV03Message(fresh.history[0] as NonNullable<(typeof fresh.history)[0]>);
    expect(toV03TaskForText(fresh).history[0]).toBe(kept);
  });
});

describe("readV03Message", () => {
  it("reads a v0.3 request message into the model", () => {
    const message = readV03Message({
      kind: "message",
      role: "user",
      messageId: "m-1",
      parts: [{ kind: "text", text: "Restock aisle 5" }],
      contextId: "ctx-1",
    });
    expect(message).toEqual({
      messageId: "m-1",
      contextId: "ctx-1",
      role: "ROLE_USER",
      parts: [{ text: "Restock aisle 5" }],
    });
  });

  it("refuses a message that is not v0.3, naming the field the client sent", () => {
    const refusal = (() => {
      try {
        readV03Message({ role: "ROLE_USER", parts: [{ text: "x" }] });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(InvalidParamsError);
    const fields = ((refusal as InvalidParamsError).data as { issues: Array<{ field: string }> }).issues.map(
      (issue) => issue.field,
    );
    expect(fields).toContain("params.message.role");
    expect(fields).toContain("params.message.parts.0.kind");
  });
});
