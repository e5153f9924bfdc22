import { A2A_LIMITS } from "../../limits.js";
import { findIllFormedString, type JsonPath } from "./find-ill-formed-string.js";
import { jsonByteLength, utf8ByteLength } from "./utf8-byte-length.js";

/** One bound a request broke: where (relative to `params`) and why, with the limit in the message. */
export interface BoundIssue {
  path: JsonPath;
  message: string;
}

const L = A2A_LIMITS;

const ILL_FORMED_MESSAGE =
  "must be well-formed Unicode: it holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)";

/** Every string and key of any params must be storable: the first one that is not is reported. */
export function wellFormedIssues(params: unknown): BoundIssue[] {
  const path = findIllFormedString(params);
  return path ? [{ path, message: ILL_FORMED_MESSAGE }] : [];
}

/** The metadata of a request that names no message (GetTask, CancelTask, SubscribeToTask). */
export function metadataIssues(params: unknown): BoundIssue[] {
  return totalOver([[["metadata"], record(params)?.metadata]], L.metadataBytes, metadataMessage);
}

/**
 * The bounds of a task start that a schema cannot express per field, because they are totals: the text
 * of all text parts, all metadata of the request, the content of all file and data parts. The part at
 * which a total crosses its bound is the one reported. Reads `params` defensively: it is whatever zod
 * made of it, valid or not.
 */
export function startIssues(params: unknown): BoundIssue[] {
  const message = record(record(params)?.message);
  const parts = Array.isArray(message?.parts) ? message.parts.map(record) : [];
  const partPath = (i: number, key: string): JsonPath => ["message", "parts", i, key];
  return [
    ...textIssues(parts),
    ...totalOver(
      [
        [["metadata"], record(params)?.metadata],
        [["message", "metadata"], message?.metadata],
        ...parts.map((part, i): [JsonPath, unknown] => [partPath(i, "metadata"), part?.metadata]),
      ],
      L.metadataBytes,
      metadataMessage,
    ),
    ...partContentIssues(
      parts.map((part, i): [JsonPath, unknown] => {
        if (part?.raw !== undefined) return [partPath(i, "raw"), part.raw];
        if (part?.url !== undefined) return [partPath(i, "url"), part.url];
        return [partPath(i, "data"), part?.data];
      }),
    ),
  ];
}

/**
 * The total of a message's file and data content, each part's content at its path (a dialect whose
 * parts differ in shape, v0.3's `file` object, counts its own).
 */
export function partContentIssues(contents: Array<[JsonPath, unknown]>): BoundIssue[] {
  return totalOver(
    contents,
    L.partContentBytes,
    () => `the file and data parts of a message together must be at most ${L.partContentBytes} bytes as JSON`,
  );
}

function textIssues(parts: Array<Record<string, unknown> | undefined>): BoundIssue[] {
  let bytes = 0;
  for (const [i, part] of parts.entries()) {
    if (typeof part?.text !== "string") continue;
    bytes += utf8ByteLength(part.text);
    if (bytes > L.textBytes) {
      return [
        {
          path: ["message", "parts", i, "text"],
          message: `the text parts of a message together must be at most ${L.textBytes} bytes of UTF-8`,
        },
      ];
    }
  }
  return [];
}

function metadataMessage(): string {
  return `the metadata of a request together must be at most ${L.metadataBytes} bytes as JSON`;
}

/** Adds up the JSON size of the values in order; reports the one at which the sum passes `limit`. */
function totalOver(values: Array<[JsonPath, unknown]>, limit: number, message: () => string): BoundIssue[] {
  let bytes = 0;
  for (const [path, value] of values) {
    if (value === undefined) continue;
    bytes += jsonByteLength(value);
    if (bytes > limit) return [{ path, message: message() }];
  }
  return [];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
