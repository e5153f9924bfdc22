import { fromJsonRpcError, type JsonRpcErrorObject, JsonRpcResponse } from "@a2a-partner/a2a-core";
import { InvalidResponseError } from "../errors.js";

/**
 * The `result` of a JSON-RPC 2.0 response in `text` (an HTTP body or an SSE frame's data). A JSON-RPC
 * error becomes its typed class; anything that is not a JSON-RPC response is an InvalidResponseError
 * naming `what` ("The server's answer", `The data of a "task" event` …). `mapError` turns a v1.0 error
 * object into the v0.3 one first.
 */
export function jsonRpcResultOf(
  text: string,
  what: string,
  mapError: (error: JsonRpcErrorObject) => JsonRpcErrorObject = (error) => error,
): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidResponseError(`${what} is not valid JSON`);
  }
  const parsed = JsonRpcResponse.safeParse(value);
  if (!parsed.success) throw new InvalidResponseError(`${what} is not a JSON-RPC 2.0 response`);
  if ("error" in parsed.data) throw fromJsonRpcError(mapError(parsed.data.error));
  return parsed.data.result;
}
