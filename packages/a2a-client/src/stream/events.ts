import { type DecodedSseEvent, isA2AError, type StreamEventName } from "@a2a-partner/a2a-core";
import type { z } from "zod";
import { InvalidResponseError } from "../errors.js";
import { WIRE_V03, type WireDialect } from "../internal/dialect/wire-dialect.js";
import { jsonRpcResultOf } from "../internal/json-rpc-result.js";
import {
  isTerminalState,
  Message,
  Task,
  TaskStatusUpdateEvent,
  TaskUpdateResult,
  type TerminalTaskState,
} from "../model.js";

/** The first event of a stream: the task as it is now (state `working` for a new task). */
export interface TaskSnapshotEvent {
  type: "task";
  /**
   * The frame's SSE `id:`: the event's sequence number within the task (`"1"` here, then `"2"`, …). A
   * server built on a2a-core sends it on every frame; undefined only when a server sends frames without
   * `id:` (another A2A implementation may), and such events cannot be deduplicated after a reattach.
   */
  eventId: string | undefined;
  task: Task;
}

/** Progress: a status update (robot, step, percent in `update.metadata`) or an artifact. */
export interface TaskUpdateEvent {
  type: "update";
  /** The frame's SSE `id:`, the event's sequence number (see TaskSnapshotEvent's for when it is absent). */
  eventId: string | undefined;
  update: TaskUpdateResult;
}

/** The authoritative end of the task; exactly one per task. */
export interface TaskFinishedEvent {
  type: "finished";
  /** The frame's SSE `id:`, the event's sequence number (see TaskSnapshotEvent's for when it is absent). */
  eventId: string | undefined;
  update: TaskStatusUpdateEvent;
  /** `update.status.state`: completed, canceled, failed or rejected. */
  state: TerminalTaskState;
}

/**
 * The agent answered the start with a message instead of a task (A2A's Message result): the stream's only
 * event, then it ends. Nothing was stored on the server: there is no task to follow, resume or cancel.
 */
export interface MessageReplyEvent {
  type: "message";
  /** Always undefined: a reply is not an event of a task. */
  eventId: undefined;
  message: Message;
}

/** What a task stream yields. The transport-level `final` frame is never surfaced. */
export type TaskStreamEvent = TaskSnapshotEvent | TaskUpdateEvent | TaskFinishedEvent | MessageReplyEvent;

/** A decoded frame: an event, or a frame the client skips (`final`, unknown event names). */
export type Frame = TaskStreamEvent | { type: "skip" };

const SKIP: Frame = { type: "skip" };

/**
 * One SSE frame → a typed event. The data is a JSON-RPC response: its `result` is checked against the
 * schema of the event name (after the dialect turned it into the v0.3 shape); a JSON-RPC `error` is thrown
 * as the typed protocol error.
 */
export function parseFrame(frame: DecodedSseEvent, dialect: WireDialect = WIRE_V03): Frame {
  const name = frame.event as StreamEventName | "message";
  // An unnamed frame (SSE's "message"; gRPC's message payload): an agent's message reply to a start.
  if (name === "message") return messageReply(frame, dialect);
  // `final` is a transport trailer (the contract says clients ignore it); unknown names are future ones.
  if (name !== "task" && name !== "update" && name !== "finished") return SKIP;
  const what = `The data of a "${frame.event}" event`;
  const result = dialect.streamResult(frameResult(frame, dialect, what));
  const eventId = frame.id === undefined || frame.id === "" ? undefined : frame.id;
  switch (name) {
    case "task":
      return { type: "task", eventId, task: check(Task, result, name) };
    case "update":
      return { type: "update", eventId, update: check(TaskUpdateResult, result, name) };
    case "finished": {
      const update = check(TaskStatusUpdateEvent, result, name);
      const state = update.status.state;
      if (!isTerminalState(state)) {
        throw new InvalidResponseError(`A "finished" event must carry a terminal state, got "${state}"`);
      }
      return { type: "finished", eventId, update, state };
    }
  }
}

/** HTTP+JSON (and gRPC) frames carry the StreamResponse bare; JSON-RPC frames inside a response envelope. */
function frameResult(frame: DecodedSseEvent, dialect: WireDialect, what: string): unknown {
  return dialect.binding !== "jsonrpc"
    ? parseFrameJson(frame.data, what)
    : jsonRpcResultOf(frame.data, what, dialect.error);
}

/**
 * An unnamed frame: the agent's Message when it carries one (v0.3 `kind: "message"`, v1.0 `{ message }`);
 * an error answer is thrown as the typed protocol error; anything else is skipped, as unnamed frames
 * always were (a server that names no events is not followed by this client).
 */
function messageReply(frame: DecodedSseEvent, dialect: WireDialect): Frame {
  let value: unknown;
  try {
    value = dialect.streamMessage(frameResult(frame, dialect, "The data of an unnamed event"));
  } catch (error) {
    if (isA2AError(error)) throw error;
    return SKIP;
  }
  if (value === undefined) return SKIP;
  return { type: "message", eventId: undefined, message: check(Message, value, "message") };
}

/** The sequence number an event id stands for, or undefined if it is not one (then nothing is deduplicated). */
export function seqOf(eventId: string | undefined): number | undefined {
  if (eventId === undefined || !/^\d{1,15}$/.test(eventId)) return undefined;
  return Number(eventId);
}

function check<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new InvalidResponseError(`The result of a "${name}" event does not have the expected shape`);
  return parsed.data;
}

function parseFrameJson(data: string, what: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw new InvalidResponseError(`${what} is not valid JSON`);
  }
}
