import type { StoredTaskEvent } from "../../ports/task-records.js";
import type { StreamEventName } from "../../protocol/sse/event-names.js";

/**
 * An event on its way to streams, with its JSON-RPC `result` serialised once: every stream of the task
 * sends the same bytes around its own request id, so the result is never stringified per stream.
 */
export interface LiveEvent {
  seq: number;
  event: StreamEventName;
  resultJson: string;
}

export function toLiveEvent(stored: Pick<StoredTaskEvent, "seq" | "event" | "result">): LiveEvent {
  return { seq: stored.seq, event: stored.event, resultJson: JSON.stringify(stored.result) };
}

/**
 * One SSE frame carrying a JSON-RPC response: byte for byte what `encodeJsonSseFrame` writes (JSON has no
 * raw line breaks, and the id and event name are ours), without building the envelope object.
 */
export function liveFrame(requestIdJson: string, event: LiveEvent): string {
  if (requestIdJson === BARE_FRAMES) return `id: ${event.seq}\nevent: ${event.event}\ndata: ${event.resultJson}\n\n`;
  return `id: ${event.seq}\nevent: ${event.event}\ndata: {"jsonrpc":"2.0","id":${requestIdJson},"result":${event.resultJson}}\n\n`;
}

/**
 * The "request id" of a stream whose request had none (HTTP+JSON): its frames carry the `result` bare,
 * a `StreamResponse` with no JSON-RPC envelope. Never the serialised id of a JSON-RPC request (those are
 * a JSON string or number, never empty).
 */
export const BARE_FRAMES = "";

export const KEEP_ALIVE_COMMENT = ": keep-alive\n\n";
