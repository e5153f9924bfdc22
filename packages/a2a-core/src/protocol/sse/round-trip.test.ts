import { describe, expect, it } from "vitest";
import type { DecodedSseEvent } from "./decoder.js";
import { decodeSseStream } from "./decoder.js";
import type { SseFrame } from "./encoder.js";
import { encodeJsonSseFrame, encodeSseComment, encodeSseFrame } from "./encoder.js";

const jsonPayload = {
  jsonrpc: "2.0",
  id: 7,
  result: { kind: "status-update", text: "line 1\nline 2\r\nline 3", robot: "ロボット-1 🤖", percent: 42.5 },
};

// What goes on the wire, in order: frames, keep-alive comments between them, and a JSON-RPC frame.
type Item = { frame: SseFrame } | { comment: string } | { json: { id: number; event: string; payload: unknown } };
const items: Item[] = [
  { comment: "keep-alive" },
  { frame: { id: "1", event: "task", data: '{"kind":"task"}' } },
  { frame: { data: "" } },
  { comment: "keep-alive" },
  { comment: "" },
  { frame: { id: "2", event: "update", data: "first line\nsecond line\n\nafter an empty line" } },
  { frame: { event: "update", data: "windows\r\nline ends\rand old mac ones" } },
  {
    frame: {
      id: "3",
      data: "😀 emoji, 漢字 CJK, 한국어, e\u0301 combining, \u{1F468}\u200D\u{1F469}\u200D\u{1F467} family",
    },
  },
  { comment: "漢字 comment" },
  { frame: { id: "", event: "update", data: "  leading spaces and trailing  " } },
  { json: { id: 4, event: "update", payload: jsonPayload } },
  { frame: { event: "finished", data: "ends with a newline\n" } },
];

const wire = items
  .map((item) =>
    "frame" in item
      ? encodeSseFrame(item.frame)
      : "comment" in item
        ? encodeSseComment(item.comment)
        : encodeJsonSseFrame(item.json),
  )
  .join("");

// What a decoder must hand back: every frame, with line breaks in data normalised to \n; no comments.
const expected: DecodedSseEvent[] = items.flatMap((item): DecodedSseEvent[] => {
  if ("comment" in item) return [];
  if ("json" in item)
    return [{ id: String(item.json.id), event: item.json.event, data: JSON.stringify(item.json.payload) }];
  const { id, event, data } = item.frame;
  const decoded: DecodedSseEvent = { event: event ?? "message", data: data.replace(/\r\n|\r/g, "\n") };
  if (id !== undefined) decoded.id = id;
  return [decoded];
});
const jsonIndex = expected.findIndex((e) => e.id === "4");

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

async function decodeChunks(chunks: Uint8Array[]): Promise<DecodedSseEvent[]> {
  const out: DecodedSseEvent[] = [];
  for await (const event of decodeSseStream(streamOf(chunks))) out.push(event);
  return out;
}

// The encoder writes LF only; other servers write CRLF or CR, which the decoder must read the same way.
// Data lines never hold a raw line break, so swapping every LF gives the same events.
const variants = {
  LF: wire,
  CRLF: wire.replace(/\n/g, "\r\n"),
  CR: wire.replace(/\n/g, "\r"),
};

describe.each(Object.entries(variants))("encode → decode round trip (%s line ends)", (_name, text) => {
  const bytes = new TextEncoder().encode(text);

  it("covers multi-byte characters, so splits land inside them", () => {
    expect(bytes.length).toBeGreaterThan(text.length);
  });

  it("decodes the whole stream in one chunk", async () => {
    const events = await decodeChunks([bytes]);
    expect(events).toEqual(expected);
    expect(JSON.parse(events[jsonIndex]?.data ?? "null")).toEqual(jsonPayload);
  });

  it("decodes the stream split in two at every byte boundary", async () => {
    for (let at = 0; at <= bytes.length; at++) {
      const events = await decodeChunks([bytes.subarray(0, at), bytes.subarray(at)]);
      // The split point in the message makes a failure point at the byte that breaks it.
      expect(events, `split at byte ${at}`).toEqual(expected);
    }
  });

  it("decodes the stream fed one byte at a time", async () => {
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    expect(await decodeChunks(chunks)).toEqual(expected);
  });
});
