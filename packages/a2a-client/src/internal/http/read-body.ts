import { type JsonRpcErrorObject, JsonRpcErrorResponse } from "@a2a-partner/a2a-core";
import { InvalidResponseError } from "../../errors.js";

/** Error bodies are only read this far: they are a JSON-RPC error object, not a download. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A JSON result (a Task with its history) larger than this is refused rather than buffered. */
export const MAX_RESULT_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads a body as UTF-8 text, at most `maxBytes`. With `truncate`, the rest is dropped (error bodies);
 * without, a longer body is an InvalidResponseError.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  truncate = false,
): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        if (!truncate) throw new InvalidResponseError(`Response body larger than ${maxBytes} bytes`);
        text += decoder.decode(value.subarray(0, value.byteLength - (size - maxBytes)), { stream: true });
        break;
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } finally {
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The JSON-RPC error object of an error body, if the body is one. */
export function parseJsonRpcErrorBody(text: string): JsonRpcErrorObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = JsonRpcErrorResponse.safeParse(value);
  return parsed.success ? parsed.data.error : undefined;
}
