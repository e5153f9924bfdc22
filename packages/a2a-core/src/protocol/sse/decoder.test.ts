import { describe, expect, it } from "vitest";
import type { DecodedSseEvent, DecodeSseOptions } from "./decoder.js";
import { DEFAULT_MAX_EVENT_BYTES, decodeSseStream, isSseDecodeError, SseDecodeError } from "./decoder.js";

const utf8 = new TextEncoder();

/** A pull-driven source (nothing read ahead) that records what was pulled and whether it was cancelled. */
function source(next: (index: number) => Uint8Array | string | "end" | "wait") {
  const state = { pulledBytes: 0, cancelled: false, cancelReason: undefined as unknown };
  let index = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const item = next(index++);
        if (item === "end") return controller.close();
        // Never resolving: the reader waits, as on an idle connection.
        if (item === "wait") return new Promise<void>(() => {});
        const bytes = typeof item === "string" ? utf8.encode(item) : item;
        state.pulledBytes += bytes.length;
        controller.enqueue(bytes);
      },
      cancel(reason) {
        state.cancelled = true;
        state.cancelReason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

function chunksStream(chunks: (Uint8Array | string)[]) {
  return source((i) => chunks[i] ?? "end");
}

async function collect(stream: ReadableStream<Uint8Array>, options?: DecodeSseOptions): Promise<DecodedSseEvent[]> {
  const out: DecodedSseEvent[] = [];
  for await (const event of decodeSseStream(stream, options)) out.push(event);
  return out;
}

async function decodeError(promise: Promise<unknown>): Promise<SseDecodeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SseDecodeError);
  return error as SseDecodeError;
}

describe("decodeSseStream", () => {
  it("yields events with id, event name and data; comments are skipped", async () => {
    const { stream } = chunksStream([
      ": keep-alive\n\nid: 1\nevent: task\ndata: {}\n\n",
      "data: no name\n\n: another comment\n\nid: 2\ndata: a\ndata: b\n\n",
    ]);
    expect(await collect(stream)).toEqual([
      { id: "1", event: "task", data: "{}" },
      { event: "message", data: "no name" },
      { id: "2", event: "message", data: "a\nb" },
    ]);
  });

  it("does not carry an id over to a later event without one", async () => {
    const events = await collect(chunksStream(["id: 5\ndata: x\n\ndata: y\n\n"]).stream);
    expect(events[1]).toEqual({ event: "message", data: "y" });
    expect(events[1]).not.toHaveProperty("id");
  });

  it("reads CRLF and lone-CR line ends, including a CRLF split between chunks", async () => {
    const { stream } = chunksStream([
      "id: 1\r\nevent: update\r\ndata: a\r",
      "\ndata: b\r",
      "\n\r",
      "\nid: 2\rdata: c\r\r",
    ]);
    expect(await collect(stream)).toEqual([
      { id: "1", event: "update", data: "a\nb" },
      { id: "2", event: "message", data: "c" },
    ]);
  });

  it("joins a multi-byte character split across chunks", async () => {
    const bytes = utf8.encode("data: 🤖倉\n\n");
    // Split inside the 4-byte emoji and inside the 3-byte CJK character.
    const { stream } = chunksStream([bytes.subarray(0, 8), bytes.subarray(8, 12), bytes.subarray(12)]);
    expect(await collect(stream)).toEqual([{ event: "message", data: "🤖倉" }]);
  });

  it("ignores a leading byte-order mark", async () => {
    const { stream } = chunksStream([new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), "data: x\n\n"]);
    expect(await collect(stream)).toEqual([{ event: "message", data: "x" }]);
  });

  it("discards an incomplete event at the end of the stream, even one ending mid-character", async () => {
    const partial = utf8.encode("data: done\n\ndata: cut 🤖").subarray(0, -2);
    expect(await collect(chunksStream([partial]).stream)).toEqual([{ event: "message", data: "done" }]);
  });

  it("fails with invalid-utf8 on bytes that are not UTF-8 and cancels the stream", async () => {
    const { stream, state } = chunksStream([
      "data: ok\n\n",
      new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a]),
    ]);
    const seen: DecodedSseEvent[] = [];
    const error = await decodeError(
      (async () => {
        for await (const e of decodeSseStream(stream)) seen.push(e);
      })(),
    );
    expect(error.reason).toBe("invalid-utf8");
    expect(isSseDecodeError(error)).toBe(true);
    expect(seen).toEqual([{ event: "message", data: "ok" }]);
    expect(state.cancelled).toBe(true);
    expect(stream.locked).toBe(false);
  });

  describe("size cap", () => {
    it("defaults to 4 MiB", () => {
      expect(DEFAULT_MAX_EVENT_BYTES).toBe(4 * 1024 * 1024);
    });

    it("accepts an event of exactly maxEventBytes on the wire and refuses one byte more", async () => {
      const frame = `id: 9\nevent: update\ndata: ${"é".repeat(50)}\n\n`;
      const size = utf8.encode(frame).length;
      expect(await collect(chunksStream([frame]).stream, { maxEventBytes: size })).toHaveLength(1);
      const error = await decodeError(collect(chunksStream([frame]).stream, { maxEventBytes: size - 1 }));
      expect(error.reason).toBe("event-too-large");
      expect(error.message).not.toMatch(/é/);
    });

    it("counts each event on its own: many small events add up to more than the cap", async () => {
      const frames = Array.from({ length: 100 }, (_, i) => `id: ${i}\ndata: ${"x".repeat(80)}\n\n`);
      const events = await collect(chunksStream([frames.join("")]).stream, { maxEventBytes: 128 });
      expect(events).toHaveLength(100);
    });

    it("does not count keep-alive comments or blank lines towards an event", async () => {
      const idle = ": keep-alive\n\n".repeat(1000) + "\n\r\n\r".repeat(500);
      const { stream } = chunksStream([idle, "data: after a long idle\n\n"]);
      expect(await collect(stream, { maxEventBytes: 64 })).toEqual([{ event: "message", data: "after a long idle" }]);
    });

    it("stops a line that never ends instead of buffering it, and cancels the stream", async () => {
      const chunk = "x".repeat(1024);
      // No newline, ever (bounded at 1 MiB so a broken cap ends the test instead of hanging it).
      const { stream, state } = source((i) => (i === 0 ? "data: " : i > 1024 ? "end" : chunk));
      const error = await decodeError(collect(stream, { maxEventBytes: 64 * 1024 }));
      expect(error.reason).toBe("event-too-large");
      expect(state.pulledBytes).toBeLessThanOrEqual(64 * 1024 + chunk.length);
      expect(state.cancelled).toBe(true);
    });

    it.each(["\n", "\r\n", "\r"])("stops an event made of endless data lines (line end %j)", async (end) => {
      const line = `data: 0123456789${end}`;
      // Split each CRLF in two: its LF alone must not be taken for a blank line that ends the event.
      const pieces = end === "\r\n" ? [line.slice(0, -1), "\n"] : [line];
      const { stream, state } = source((i) => (i > 20_000 ? "end" : (pieces[i % pieces.length] ?? "end")));
      const error = await decodeError(collect(stream, { maxEventBytes: 10_000 }));
      expect(error.reason).toBe("event-too-large");
      expect(state.pulledBytes).toBeLessThanOrEqual(10_000 + line.length);
    });

    it("counts bytes, not characters", async () => {
      // 30 CJK characters are 90 bytes: under a 64-character budget, over a 64-byte one.
      const { stream } = chunksStream([`data: ${"倉".repeat(30)}\n\n`]);
      expect((await decodeError(collect(stream, { maxEventBytes: 64 }))).reason).toBe("event-too-large");
    });

    it("yields the events that came before the oversized one", async () => {
      const { stream } = chunksStream([`data: small\n\ndata: ${"y".repeat(500)}\n\n`]);
      const seen: string[] = [];
      await decodeError(
        (async () => {
          for await (const e of decodeSseStream(stream, { maxEventBytes: 100 })) seen.push(e.data);
        })(),
      );
      expect(seen).toEqual(["small"]);
    });

    it.each([0, -1, Number.NaN])("refuses maxEventBytes %s", async (maxEventBytes) => {
      await expect(collect(chunksStream([]).stream, { maxEventBytes })).rejects.toThrow(RangeError);
    });
  });

  describe("stopping", () => {
    it("cancels the stream and releases the lock when the consumer stops early", async () => {
      const { stream, state } = source((i) => `id: ${i}\ndata: tick\n\n`); // endless
      const ids: (string | undefined)[] = [];
      for await (const event of decodeSseStream(stream)) {
        ids.push(event.id);
        if (ids.length === 3) break;
      }
      expect(ids).toEqual(["0", "1", "2"]);
      expect(state.cancelled).toBe(true);
      expect(stream.locked).toBe(false);
    });

    it("does not cancel a stream that ended by itself", async () => {
      const { stream, state } = chunksStream(["data: only\n\n"]);
      expect(await collect(stream)).toHaveLength(1);
      expect(state.cancelled).toBe(false);
      expect(stream.locked).toBe(false);
    });

    it("abort during a pending read cancels the stream and throws the abort reason", async () => {
      const { stream, state } = source((i) => (i === 0 ? "data: first\n\n" : "wait"));
      const controller = new AbortController();
      const iterator = decodeSseStream(stream, { signal: controller.signal });
      expect((await iterator.next()).value).toEqual({ event: "message", data: "first" });
      const pending = iterator.next();
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: "AbortError" });
      expect(state.cancelled).toBe(true);
      expect(stream.locked).toBe(false);
    });

    it("an already aborted signal yields nothing and cancels the stream", async () => {
      const { stream, state } = chunksStream(["data: x\n\n"]);
      const reason = new Error("gave up");
      await expect(collect(stream, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      expect(state.cancelled).toBe(true);
    });

    it("passes an error of the stream itself through", async () => {
      const failure = new Error("connection reset");
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.error(failure);
        },
      });
      await expect(collect(stream)).rejects.toBe(failure);
    });

    it("refuses chunks that are not bytes without crashing", async () => {
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue("data: x\n\n");
          controller.close();
        },
      }) as unknown as ReadableStream<Uint8Array>;
      await expect(collect(stream)).rejects.toThrow(TypeError);
    });
  });
});
