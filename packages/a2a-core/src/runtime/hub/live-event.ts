import type { StoredTaskEvent } from "../../ports/task-records.js";
import type { StreamEventName } from "../../protocol/sse/event-names.js";
import { madeV03EventJson } from "../../protocol/v0_3/mapping.js";

/**
 * An event on its way to streams, with its result serialised once (in the model: A2A v1.0's
 * `StreamResponse`): every stream of the task sends the same bytes around its own request id, so the
 * result is never stringified per stream. `v03Json`, once made, is the same for the v0.3 dialect.
 */
export interface LiveEvent {
  seq: number;
  event: StreamEventName;
  resultJson: string;
  v03Json?: string;
}

export function toLiveEvent(stored: Pick<StoredTaskEvent, "seq" | "event" | "result">): LiveEvent {
  const live: LiveEvent = { seq: stored.seq, event: stored.event, resultJson: JSON.stringify(stored.result) };
  // A store that logs v0.3 (the PostgreSQL store) made it already for this very object.
  const v03Json = madeV03EventJson(stored.result);
  if (v03Json !== undefined) live.v03Json = v03Json;
  return live;
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
