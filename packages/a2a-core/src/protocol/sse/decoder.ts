import { createParser } from "eventsource-parser";

/** One event read from an SSE stream. */
export interface DecodedSseEvent {
  /** The `id:` field of this event's own block, if it had one (not inherited from earlier events). */
  id?: string;
  /** The `event:` field; "message" when absent or empty, as in the browser's EventSource. */
  event: string;
  /** The `data:` lines joined with \n. */
  data: string;
}

export interface DecodeSseOptions {
  /**
   * Largest size of one event, in bytes on the wire (field names, line ends and the blank line that
   * ends it included). Default 4 MiB. Past it the decoder fails instead of buffering more.
   */
  maxEventBytes?: number;
  /** Aborting stops the decoder: the stream is cancelled and the iterator throws the signal's reason. */
  signal?: AbortSignal;
}

export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

export type SseDecodeErrorReason = "event-too-large" | "invalid-utf8";

const SSE_DECODE_ERROR_BRAND = Symbol.for("a2a-partner.SseDecodeError");

/** The byte stream is not a usable SSE stream. The stream has been cancelled when this is thrown. */
export class SseDecodeError extends Error {
  readonly [SSE_DECODE_ERROR_BRAND] = true;
  readonly reason: SseDecodeErrorReason;

  constructor(reason: SseDecodeErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SseDecodeError";
    this.reason = reason;
  }
}

/** True for an SseDecodeError from any copy (ESM or CJS) of this package. */
export function isSseDecodeError(value: unknown): value is SseDecodeError {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SSE_DECODE_ERROR_BRAND] === true
  );
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Async iterator of events over a byte stream. Comments (keep-alives) are not yielded. Handles chunks split
 * at any byte, including in the middle of a multi-byte UTF-8 character and between \r and \n. Fails with
 * SseDecodeError("event-too-large") once one event's buffered size passes maxEventBytes instead of growing
 * without end. Releases the reader lock / cancels the stream when the consumer stops early (return()).
 *
 * An incomplete event at the end of the stream is discarded (as the SSE standard says), so a dropped
 * connection simply ends the iteration; errors of the stream itself are rethrown as they are.
 */
export async function* decodeSseStream(
  stream: ReadableStream<Uint8Array>,
  options: DecodeSseOptions = {},
): AsyncGenerator<DecodedSseEvent> {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  if (!(maxEventBytes > 0)) throw new RangeError("maxEventBytes must be a positive number");
  const { signal } = options;

  const reader = stream.getReader();
  // fatal: a peer sending bytes that are not UTF-8 is refused rather than silently altered.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const ready: DecodedSseEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      const event: DecodedSseEvent = { event: message.event ?? "message", data: message.data };
      if (message.id !== undefined) event.id = message.id;
      ready.push(event);
    },
  });

  // The parser buffers an unfinished line and an unfinished event internally without bound, so the
  // decoder counts the bytes of the current event block itself: they pass through `bytesInEvent` before
  // the parser sees them, and the count restarts at every blank line (the end of a block).
  let bytesInEvent = 0;
  let previousByte = LF; // the start of the stream is the start of a line
  let streamDone = false;

  const onAbort = () => {
    // Ends a pending read(); the loop then throws the signal's reason.
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });

  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) {
        streamDone = true;
        return;
      }
      if (!(value instanceof Uint8Array)) throw new TypeError("decodeSseStream expects a stream of Uint8Array chunks");

      for (const piece of splitAfterLineEnds(value)) {
        bytesInEvent += piece.length;
        if (bytesInEvent > maxEventBytes) {
          throw new SseDecodeError("event-too-large", `SSE event larger than ${maxEventBytes} bytes`);
        }
        let text: string;
        try {
          text = decoder.decode(piece, { stream: true });
        } catch (cause) {
          throw new SseDecodeError("invalid-utf8", "SSE stream is not valid UTF-8", { cause });
        }
        parser.feed(text);
        if (isBlankLine(piece, previousByte)) bytesInEvent = 0;
        previousByte = piece[piece.length - 1] ?? previousByte;

        while (ready.length > 0) {
          yield ready.shift() as DecodedSseEvent;
          signal?.throwIfAborted();
        }
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // Stopped before the end (early return, abort, decode error): tell the producer we are gone.
    if (!streamDone) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * Splits a chunk just after each CR and LF. Only for the size count above (a blank line is then one
 * piece); the parser does the actual SSE parsing. CR and LF bytes never occur inside a multi-byte UTF-8
 * sequence, so the pieces decode exactly like the whole chunk.
 */
function* splitAfterLineEnds(chunk: Uint8Array): Generator<Uint8Array> {
  let start = 0;
  let lf = chunk.indexOf(LF);
  let cr = chunk.indexOf(CR);
  while (start < chunk.length) {
    if (lf !== -1 && lf < start) lf = chunk.indexOf(LF, start);
    if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
    const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
    if (end === -1) {
      yield chunk.subarray(start);
      return;
    }
    yield chunk.subarray(start, end + 1);
    start = end + 1;
  }
}

/** A piece holding only a line end that starts a line, except the LF completing a CRLF split in two. */
function isBlankLine(piece: Uint8Array, previousByte: number): boolean {
  if (piece.length !== 1) return false;
  const byte = piece[0];
  if (byte === CR) return previousByte === LF || previousByte === CR;
  return byte === LF && previousByte === LF;
}
