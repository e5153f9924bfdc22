import { BodyReadError } from "../ports/body-read-error.js";

/**
 * How much of a body refused as too large is still read, and dropped, before the 413 is sent. A client
 * writes its whole body before it reads an answer: a server that closes the connection under the upload
 * makes the client's TCP stack reset it, and the client sees EPIPE / ECONNRESET instead of the 413. Past
 * these bounds the answer goes anyway and the connection is closed; the client may then see the reset.
 * Refusals made from the headers (401, 429, 503) are not delayed: they shed load, and a body of a size the
 * handler accepts fits in the sockets' buffers, so its client reads them.
 */
export const DISCARD_BOUNDS = { bytes: 16 * 1024 * 1024, ms: 10_000 } as const;

/**
 * Reads a request body as UTF-8 text, refusing more than `maxBytes` as soon as it is exceeded (without
 * buffering the rest) and invalid UTF-8.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  declaredLength?: string | null,
): Promise<string> {
  if (declaredLength && Number(declaredLength) > maxBytes) throw tooLarge(maxBytes);
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // The rest is left unread here: the adapter drops it before answering (discardBody).
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeUtf8(bytes);
}

// One decoder for every body: a fatal decoder keeps no state between whole-buffer decodes.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes → text, refusing anything that is not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new BodyReadError("invalid-utf8", "The request body is not valid UTF-8");
  }
}

export function isTooLarge(error: unknown): boolean {
  return error instanceof BodyReadError && error.reason === "too-large";
}

export function tooLarge(maxBytes: number): BodyReadError {
  return new BodyReadError("too-large", `The request body is larger than ${maxBytes} bytes`);
}

/**
 * Reads what is left of a body and drops it, within DISCARD_BOUNDS; true when the body was read to its
 * end (the connection can then be closed without resetting the client's upload). Never throws.
 */
export async function discardBody(body: ReadableStream<Uint8Array>, declaredLength?: string | null): Promise<boolean> {
  if (Number(declaredLength) > DISCARD_BOUNDS.bytes || body.locked) return false;
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(resolve, DISCARD_BOUNDS.ms, "late");
  });
  let ended = false;
  try {
    for (let seen = 0; seen <= DISCARD_BOUNDS.bytes; ) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "late") break;
      if (next.done) {
        ended = true;
        break;
      }
      seen += next.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to protect.
  } finally {
    clearTimeout(timer);
    if (!ended) void reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return ended;
}
