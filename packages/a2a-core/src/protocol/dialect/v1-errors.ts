import type { BadRequestV1, ErrorInfoV1 } from "../schemas/a2a-v1.js";
import type { JsonRpcErrorObject } from "../schemas/jsonrpc.js";

const ERROR_DOMAIN = "a2a-protocol.org";
/** The `google.rpc.ErrorInfo.reason` of each code this endpoint answers with. */
const REASON_BY_CODE: Record<number, string> = {
  [-32700]: "PARSE_ERROR",
  [-32600]: "INVALID_REQUEST",
  [-32601]: "METHOD_NOT_FOUND",
  [-32602]: "INVALID_PARAMS",
  [-32603]: "INTERNAL_ERROR",
  [-32001]: "TASK_NOT_FOUND",
  [-32002]: "TASK_NOT_CANCELABLE",
  [-32003]: "PUSH_NOTIFICATION_NOT_SUPPORTED",
  [-32004]: "UNSUPPORTED_OPERATION",
  [-32005]: "CONTENT_TYPE_NOT_SUPPORTED",
  [-32009]: "VERSION_NOT_SUPPORTED",
};

/**
 * A v0.3 error object → v1.0: same code and message; `data` becomes the list of error details v1.0
 * defines (`google.rpc.ErrorInfo` with the old data's scalar fields as string metadata, plus
 * `google.rpc.BadRequest` listing the failing fields of a -32602).
 */
export function toV1Error(error: JsonRpcErrorObject): JsonRpcErrorObject {
  const data = isRecord(error.data) ? error.data : {};
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      metadata[key] = String(value);
    } else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
      metadata[key] = value.join(",");
    }
  }
  const info: ErrorInfoV1 = {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: REASON_BY_CODE[error.code] ?? "UNKNOWN",
    domain: ERROR_DOMAIN,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
  const details: Array<ErrorInfoV1 | BadRequestV1> = [info];
  const issues = Array.isArray(data.issues) ? data.issues.filter(isRecord) : [];
  if (issues.length > 0) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: issues.map((issue) => ({ field: String(issue.field), description: String(issue.message) })),
    });
  }
  return { code: error.code, message: error.message, data: details };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A v1.0 error object → v0.3: same code and message; `data` becomes one object again, the ErrorInfo
 * metadata (as strings, the way v1.0 carries them) plus the BadRequest field violations as `issues`. A
 * `data` that is not a details list is kept as it is. The inverse of `toV1Error`, up to value types.
 */
export function fromV1Error(error: JsonRpcErrorObject): JsonRpcErrorObject {
  if (!Array.isArray(error.data)) return error;
  const data: Record<string, unknown> = {};
  for (const detail of error.data.filter(isRecord)) {
    if (detail["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" && isRecord(detail.metadata)) {
      Object.assign(data, detail.metadata);
    } else if (
      detail["@type"] === "type.googleapis.com/google.rpc.BadRequest" &&
      Array.isArray(detail.fieldViolations)
    ) {
      data.issues = detail.fieldViolations
        .filter(isRecord)
        .map((violation) => ({ field: String(violation.field), message: String(violation.description) }));
    }
  }
  return { code: error.code, message: error.message, ...(Object.keys(data).length > 0 ? { data } : {}) };
}

const CODE_BY_REASON = new Map(Object.entries(REASON_BY_CODE).map(([code, reason]) => [reason, Number(code)]));

/**
 * An error body of the HTTP+JSON binding, `{ "error": google.rpc.Status }`, → the v1.0 JSON-RPC error it
 * stands for: the code its `ErrorInfo` reason names, the message, the details as `data` (`fromV1Error`
 * turns that into v0.3). Undefined when the body is not such a status or names no reason this protocol has.
 */
export function fromHttpJsonStatus(body: unknown): JsonRpcErrorObject | undefined {
  const status = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (!status || !Array.isArray(status.details)) return undefined;
  const info = status.details.find(
    (detail): detail is Record<string, unknown> =>
      isRecord(detail) && detail["@type"] === "type.googleapis.com/google.rpc.ErrorInfo",
  );
  const code = typeof info?.reason === "string" ? CODE_BY_REASON.get(info.reason) : undefined;
  if (code === undefined) return undefined;
  return { code, message: typeof status.message === "string" ? status.message : "", data: status.details };
}
