import { BodyReadError } from "../ports/body-read-error.js";

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
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
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

export function tooLarge(maxBytes: number): BodyReadError {
  return new BodyReadError("too-large", `The request body is larger than ${maxBytes} bytes`);
}
