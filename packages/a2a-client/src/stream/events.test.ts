import { describe, expect, it } from "vitest";
import { errorFrame, finished, progress, task } from "../../test/support/fixtures.js";
import { InvalidResponseError, TaskNotFoundError } from "../index.js";
import { EventCursor } from "../internal/stream/cursor.js";
import { parseFrame, seqOf } from "./events.js";

const data = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: "r", result });

describe("parseFrame", () => {
  it("types task, update and finished frames and keeps their event ids", () => {
    expect(parseFrame({ id: "1", event: "task", data: data(task()) })).toMatchObject({
      type: "task",
      eventId: "1",
      task: { id: "task-1" },
    });
    expect(parseFrame({ id: "2", event: "update", data: data(progress("task-1", 1)) })).toMatchObject({
      type: "update",
      eventId: "2",
      update: { kind: "status-update", metadata: { robot: "robot-1" } },
    });
    expect(parseFrame({ id: "3", event: "finished", data: data(finished("task-1", "rejected")) })).toMatchObject({
      type: "finished",
      state: "rejected",
    });
  });

  // An a2a-core server numbers every frame; a server that sends none (another implementation) still works.
  it("leaves eventId undefined only for a frame without an id", () => {
    expect(parseFrame({ event: "task", data: data(task()) })).toMatchObject({ type: "task", eventId: undefined });
    expect(parseFrame({ id: "", event: "update", data: data(progress("task-1", 1)) })).toMatchObject({
      type: "update",
      eventId: undefined,
    });
  });

  it("skips the final trailer and event names it does not know, whatever their data", () => {
    expect(parseFrame({ id: "3", event: "final", data: data(task("t", "completed")) })).toEqual({ type: "skip" });
    expect(parseFrame({ id: "3", event: "final", data: "not json" })).toEqual({ type: "skip" });
    expect(parseFrame({ event: "message", data: "hello" })).toEqual({ type: "skip" });
    expect(parseFrame({ event: "future-thing", data: "{}" })).toEqual({ type: "skip" });
  });

  it("throws the typed protocol error a frame carries", () => {
    const raw = errorFrame(2, "update", -32001, "Task not found");
    const [, event, payload] = /^id: \d+\nevent: (\w+)\ndata: (.*)\n\n$/.exec(raw) ?? [];
    expect(() => parseFrame({ id: "2", event: event as string, data: payload as string })).toThrow(TaskNotFoundError);
  });

  it("refuses malformed frames with InvalidResponseError", () => {
    const bad = [
      { event: "task", data: "{not json" },
      { event: "task", data: JSON.stringify({ hello: 1 }) },
      { event: "task", data: data({ kind: "task" }) },
      { event: "update", data: data({ kind: "something-else" }) },
      { event: "finished", data: data({ ...finished("t"), status: { state: "working", timestamp: "t" } }) },
    ];
    for (const frame of bad) expect(() => parseFrame(frame)).toThrow(InvalidResponseError);
  });
});

describe("EventCursor", () => {
  it("admits each sequence number once, in increasing order", () => {
    const cursor = new EventCursor();
    expect(["1", "2", "1", "2", "3", "3", "5", "4"].map((id) => cursor.admit(id))).toEqual([
      true,
      true,
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(cursor.lastSeq).toBe(5);
  });

  it("starts after a given id and always admits events without a numeric id", () => {
    const cursor = new EventCursor(3);
    expect(cursor.admit("1")).toBe(false);
    expect(cursor.admit(undefined)).toBe(true);
    expect(cursor.admit("x7")).toBe(true);
    expect(cursor.admit("4")).toBe(true);
  });

  it("seqOf accepts only plain non-negative integers", () => {
    expect(["0", "12", "", "-1", "1.5", " 2", "1e3", undefined].map(seqOf)).toEqual([
      0,
      12,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
