import type { JsonRpcErrorObject } from "../schemas/jsonrpc.js";

/**
 * A part's fields as the model names them → as a v0.3 client sent them (`file.bytes`, `file.uri`,
 * `file.name`, `file.mimeType`): a refusal of a v0.3 request names the field the client sent.
 */
const PART_FIELD = /^(params\.message\.parts\.\d+)\.(raw|url|filename|mediaType)\b/;
const V03_FIELD: Record<string, string> = {
  raw: "file.bytes",
  url: "file.uri",
  filename: "file.name",
  mediaType: "file.mimeType",
};

function v03Field(field: string): string {
  return field.replace(PART_FIELD, (_all, part: string, name: string) => `${part}.${V03_FIELD[name]}`);
}

/** The error with its field paths as v0.3 names them; the very object when none differs. */
export function withV03FieldNames(error: JsonRpcErrorObject): JsonRpcErrorObject {
  const data = error.data as { field?: unknown; issues?: Array<{ field: string; message: string }> } | undefined;
  if (typeof data?.field !== "string" || !PART_FIELD.test(data.field)) {
    if (!data?.issues?.some((issue) => PART_FIELD.test(issue.field))) return error;
  }
  const field = typeof data?.field === "string" ? v03Field(data.field) : undefined;
  return {
    ...error,
    message:
      typeof data?.field === "string" && field !== undefined ? error.message.replace(data.field, field) : error.message,
    data: {
      ...data,
      ...(field === undefined ? {} : { field }),
      ...(data?.issues ? { issues: data.issues.map((issue) => ({ ...issue, field: v03Field(issue.field) })) } : {}),
    },
  };
}
