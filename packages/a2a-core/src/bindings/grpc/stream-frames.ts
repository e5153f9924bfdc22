import type { DescMessage } from "@bufbuild/protobuf";
import { messageOfJson } from "./proto-json.js";

/**
 * Where each streamed `StreamResponse` carries its event's sequence number: a key of the event's own
 * `metadata` (gRPC has no per-message headers). SubscribeToTask resumes after the one sent back in the
 * `last-event-id` request metadata, as SSE's `id:` and `Last-Event-ID` do.
 */
export const EVENT_SEQ_KEY = "a2a-partner/event-seq";

/** The payloads of a `StreamResponse` (its oneof), each of which has a `metadata` Struct. */
const PAYLOADS = ["task", "message", "statusUpdate", "artifactUpdate"] as const;

/**
 * The stream frames of one sink write (bare `StreamResponse` SSE frames, `id: <seq>` first) as response
 * messages, each with its sequence number under EVENT_SEQ_KEY. Keep-alive comments carry nothing: HTTP/2
 * has its own pings.
 */
export function streamMessages(schema: DescMessage, chunk: string): readonly Uint8Array[] {
  let recent = RECENT.get(schema);
  if (!recent) {
    recent = new Map();
    RECENT.set(schema, recent);
  }
  const cached = recent.get(chunk);
  if (cached) return cached;
  const messages = encode(schema, chunk);
  if (chunk.length <= CACHEABLE_CHARS) {
    if (recent.size >= RECENT_CHUNKS) recent.delete(recent.keys().next().value as string);
    recent.set(chunk, messages);
  }
  return messages;
}

/**
 * The last chunks encoded, oldest first: the hub hands one event to every stream of its task as the same
 * text (its JSON rendered once), so a task with many streams encodes each event once, not once per stream,
 * as the SSE bindings render it once. Bounded in entries and in size; the bytes are never written to.
 */
const RECENT = new WeakMap<DescMessage, Map<string, readonly Uint8Array[]>>();
const RECENT_CHUNKS = 64;
const CACHEABLE_CHARS = 16 * 1024;

function encode(schema: DescMessage, chunk: string): Uint8Array[] {
  const messages: Uint8Array[] = [];
  for (const frame of chunk.split("\n\n")) {
    let seq: number | undefined;
    let data: string | undefined;
    for (const line of frame.split("\n")) {
      if (line.startsWith("id: ")) seq = Number(line.slice(4));
      else if (line.startsWith("data: ")) data = line.slice(6);
    }
    if (data === undefined) continue;
    const response = JSON.parse(data) as Record<string, Record<string, unknown> | undefined>;
    if (seq !== undefined) {
      for (const name of PAYLOADS) {
        const payload = response[name];
        if (payload) payload.metadata = { ...(payload.metadata as object | undefined), [EVENT_SEQ_KEY]: seq };
      }
    }
    messages.push(messageOfJson(schema, response));
  }
  return messages;
}
