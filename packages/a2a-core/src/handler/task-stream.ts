import { isTerminalState } from "../schemas/a2a.js";
import type { JsonRpcId } from "../schemas/jsonrpc.js";
import { encodeJsonSseFrame, encodeSseComment } from "../sse/encoder.js";
import type { StreamEventName } from "../sse/event-names.js";
import type { EventLog } from "../stores/event-log.js";
import type { TaskStore } from "../stores/task-store.js";
import type { TaskRecord } from "../stores/types.js";
import type { Logger } from "./options.js";

export interface TaskStreamOptions {
  tasks: TaskStore;
  events: EventLog;
  logger: Logger;
  /** The JSON-RPC id every frame's response carries. */
  requestId: JsonRpcId;
  /** The task as it is now; sent first as the `task` frame. */
  record: TaskRecord;
  /** Replay events with a greater sequence number; live events follow. */
  afterSeq: number;
  keepAliveMs: number;
  /** Aborts when the client goes away or the server shuts down: the stream ends, the task goes on. */
  signal: AbortSignal;
}

/** Sequence number of a task's first event, the `task` frame. */
export const TASK_EVENT_SEQ = 1;

/**
 * The frames of one task stream: `task` (the snapshot), the logged events after `afterSeq`, live events
 * as they are appended, and after `finished` the transport-level `final` (the terminal task). Every event
 * comes from the durable log, so what one connection missed another can replay.
 */
export async function* taskStreamFrames(options: TaskStreamOptions): AsyncGenerator<string> {
  const { tasks, events, requestId, record, keepAliveMs, signal } = options;
  const taskId = record.task.id;
  yield frame(TASK_EVENT_SEQ, "task", requestId, record.task);

  // A terminal task always replays its `finished` event, so every stream ends with finished + final.
  // The `task` frame above already stands for seq 1, so a replay starts after it at the earliest.
  let cursor = Math.max(TASK_EVENT_SEQ, Math.min(options.afterSeq, record.lastSeq));
  if (isTerminalState(record.task.status.state)) cursor = Math.min(cursor, record.lastSeq - 1);

  let woke = false;
  while (!signal.aborted) {
    const batch = await events.readAfter(taskId, cursor);
    // Woken with nothing to read: a spurious wake-up, or the task is gone (deleted). Gone ends the stream
    // instead of spinning between read and wait.
    if (woke && batch.length === 0 && !(await tasks.get(record.workspaceId, taskId))) return;
    woke = false;
    for (const event of batch) {
      yield frame(event.seq, event.event, requestId, event.result);
      cursor = event.seq;
      if (event.event === "finished") {
        const terminal = await tasks.get(record.workspaceId, taskId);
        // `final` is not in the log; its id follows `finished` so ids keep increasing on every stream.
        yield frame(event.seq + 1, "final", requestId, terminal?.task ?? record.task);
        return;
      }
    }
    if (batch.length > 0) continue;
    // One wait per quiet spell: keep-alive comments go out while it runs, so an idle stream costs the
    // store nothing per keep-alive.
    const woken = events.waitForEvents(taskId, cursor, signal).then(
      () => "event" as const,
      (error) => {
        if (signal.aborted) return "aborted" as const;
        throw error;
      },
    );
    for (;;) {
      const outcome = await raceWithTimer(woken, keepAliveMs);
      if (outcome === "aborted") return;
      if (outcome === "event") {
        woke = true;
        break;
      }
      yield encodeSseComment("keep-alive");
    }
  }
}

/** The promise's value, or "idle" when `ms` pass first. */
async function raceWithTimer<T>(promise: Promise<T>, ms: number): Promise<T | "idle"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<"idle">((resolve) => {
        timer = setTimeout(() => resolve("idle"), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function frame(seq: number, event: StreamEventName, requestId: JsonRpcId, result: unknown): string {
  return encodeJsonSseFrame({ id: seq, event, payload: { jsonrpc: "2.0", id: requestId, result } });
}
