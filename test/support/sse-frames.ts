import type { LooseJson } from "./loose-json.ts";

/** One SSE event as a2a-core's `decodeSseStream` yields it. */
interface DecodedEvent {
  id?: string;
  event: string;
  data: string;
}

/** a2a-core's `decodeSseStream`, passed in so this private package needs none of the packages it tests. */
type DecodeSse = (stream: ReadableStream<Uint8Array>) => AsyncIterable<DecodedEvent>;

/** A frame of an A2A stream: its SSE id and event name, and its data parsed as JSON. */
export interface SseFrame {
  id: string | undefined;
  event: string;
  data: LooseJson;
}

/**
 * The frames of an SSE response, read until the stream ends or `limit` frames came (the stream is then
 * let go). Fails when the response is not `text/event-stream`.
 */
export async function sseFrames(
  decode: DecodeSse,
  res: Response,
  limit = Number.POSITIVE_INFINITY,
): Promise<SseFrame[]> {
  const type = res.headers.get("content-type");
  if (!type?.startsWith("text/event-stream")) throw new Error(`expected an SSE stream, got content-type ${type}`);
  const frames: SseFrame[] = [];
  for await (const event of decode(res.body as ReadableStream<Uint8Array>)) {
    frames.push({ id: event.id, event: event.event, data: JSON.parse(event.data) });
    if (frames.length >= limit) break;
  }
  return frames;
}
