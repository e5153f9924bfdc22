import type { StoredTaskEvent } from "../../ports/task-records.js";
import type { SerialisedEvent } from "../../protocol/dialect/dialect.js";
import type { TaskEventResult } from "../../protocol/schemas/a2a.js";
import type { StreamEventName } from "../../protocol/sse/event-names.js";
import { madeV03EventJson } from "../../protocol/v0_3/v03-json.js";

/**
 * An event on its way to streams. Every stream of the task is handed this one object, so each JSON text
 * of its result is made at most once, by the first reader that needs it: the model's (A2A v1.0's
 * `StreamResponse`) for v1.0 streams, `v03Json` for v0.3 streams (already made by a store that logs v0.3).
 * A deployment whose streams all speak v0.3 never stringifies the model.
 */
export class LiveEvent implements SerialisedEvent {
  v03Json?: string;
  private json?: string;

  constructor(
    readonly seq: number,
    readonly event: StreamEventName,
    /** Shared, never written to: results are immutable once logged. */
    readonly result: TaskEventResult,
  ) {}

  get resultJson(): string {
    this.json ??= JSON.stringify(this.result);
    return this.json;
  }

  /** The length of a JSON text of the result, the one made already if any: what holding it costs, roughly. */
  get jsonLength(): number {
    return (this.json ?? this.v03Json ?? this.resultJson).length;
  }
}

export function toLiveEvent(stored: Pick<StoredTaskEvent, "seq" | "event" | "result">): LiveEvent {
  const live = new LiveEvent(stored.seq, stored.event, stored.result);
  // A store that logs v0.3 (the PostgreSQL store) made it already for this very object.
  const v03Json = madeV03EventJson(stored.result);
  if (v03Json !== undefined) live.v03Json = v03Json;
  return live;
}

/** What one SSE frame carries: the event's number and name and its `result` in the stream's dialect. */
export interface Frame {
  seq: number;
  event: StreamEventName;
  resultJson: string;
}

/**
 * One SSE frame carrying a JSON-RPC response: byte for byte what `encodeJsonSseFrame` writes (JSON has no
 * raw line breaks, and the id and event name are ours), without building the envelope object.
 */
export function liveFrame(requestIdJson: string, frame: Frame): string {
  if (requestIdJson === BARE_FRAMES) return `id: ${frame.seq}\nevent: ${frame.event}\ndata: ${frame.resultJson}\n\n`;
  return `id: ${frame.seq}\nevent: ${frame.event}\ndata: {"jsonrpc":"2.0","id":${requestIdJson},"result":${frame.resultJson}}\n\n`;
}

/**
 * The "request id" of a stream whose request had none (HTTP+JSON): its frames carry the `result` bare,
 * a `StreamResponse` with no JSON-RPC envelope. Never the serialised id of a JSON-RPC request (those are
 * a JSON string or number, never empty).
 */
export const BARE_FRAMES = "";

export const KEEP_ALIVE_COMMENT = ": keep-alive\n\n";
