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
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  // Leaving the loop early (past the limit, or a throw) cancels the rest of the body.
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size <= maxBytes) {
      text += decoder.decode(chunk, { stream: true });
      continue;
    }
    if (!truncate) throw new InvalidResponseError(`Response body larger than ${maxBytes} bytes`);
    text += decoder.decode(chunk.subarray(0, chunk.byteLength - (size - maxBytes)), { stream: true });
    break;
  }
  return text + decoder.decode();
}

/** The body's JSON, or undefined when it is not JSON (an error page, a proxy's text). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON-RPC error object of an error body, if the body is one. */
export function parseJsonRpcErrorBody(text: string): JsonRpcErrorObject | undefined {
  const parsed = JsonRpcErrorResponse.safeParse(jsonOrUndefined(text));
  return parsed.success ? parsed.data.error : undefined;
}
