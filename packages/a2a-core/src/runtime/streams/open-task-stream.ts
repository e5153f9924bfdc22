import type { A2AStreamResponse, SseSink } from "../../ports/handler-response.js";
import { SSE_HEADERS } from "../../ports/handler-response.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { StreamRenderer } from "../../protocol/dialect/dialect.js";
import { isTerminalState } from "../../protocol/schemas/a2a.js";
import type { RequestTrace } from "../../telemetry/handler-telemetry.js";
import type { A2ARuntime } from "../a2a-runtime.js";
import type { ReleaseSlot } from "../per-caller-slots.js";
import { pullFrames } from "./pull-frames.js";
import { TaskSubscription } from "./task-subscription.js";

/** Sequence number of a task's first event, the `task` frame. */
export const TASK_EVENT_SEQ = 1;

/** A stream a method asked for, with what its binding adds: the request's id, its dialect, its slot. */
export interface TaskStreamRequest {
  record: TaskRecord;
  /** The stream replays the events after this sequence number, then follows the task live. */
  afterSeq: number;
  /** The request's id, serialised once for every frame. */
  requestIdJson: string;
  render: StreamRenderer;
  /** Gives the caller's stream slot back; called once when the stream ends. */
  release: ReleaseSlot;
  trace: RequestTrace;
}

/**
 * The SSE answer for a task: nothing happens until an adapter starts it with its sink (or iterates its
 * frames); then the `task` frame, the replay and the live events, until `final` (or shutdown).
 */
export function openTaskStream(runtime: A2ARuntime, request: TaskStreamRequest): A2AStreamResponse {
  const { record, release, trace, render } = request;
  const { hub, openStreams, telemetry } = runtime;
  // A terminal task always replays its `finished` event, so every stream ends with finished + final.
  // The `task` frame stands for seq 1, so a replay starts after it at the earliest.
  let cursor = Math.max(TASK_EVENT_SEQ, Math.min(request.afterSeq, record.lastSeq));
  if (isTerminalState(record.task.status.state)) cursor = Math.min(cursor, record.lastSeq - 1);
  let started = false;
  const start = (sink: SseSink) => {
    if (started) throw new Error("a stream is started once");
    started = true;
    const span = telemetry.startStream(trace, record.task.id, cursor);
    const subscription = new TaskSubscription(
      record.task.id,
      request.requestIdJson,
      sink,
      runtime.backlogBounds,
      cursor,
      openStreams,
      (ended) => {
        openStreams.delete(ended);
        hub.unsubscribe(ended);
        release();
        telemetry.endStream(trace, span, ended);
      },
      render,
    );
    if (runtime.closing) {
      subscription.end("shutdown");
      return () => {};
    }
    openStreams.add(subscription);
    hub.subscribe(record, subscription);
    return () => subscription.detach();
  };
  return { kind: "sse", status: 200, headers: { ...SSE_HEADERS }, start, frames: pullFrames(start) };
}
