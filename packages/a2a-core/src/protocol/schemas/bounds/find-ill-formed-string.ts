import { findString, type JsonPath } from "./find-string.js";

export type { JsonPath };

/**
 * The path of the first string or object key (in document order) that is not well-formed Unicode: one
 * holding a lone UTF-16 surrogate, which JSON's `\ud800` escape can produce. PostgreSQL refuses such text in
 * jsonb and silently replaces it with U+FFFD in text columns (so two different keys would collide), so
 * it is refused at the edge. A key is reported with its lone surrogates shown as U+FFFD, so the path itself
 * is well-formed.
 */
export function findIllFormedString(root: unknown): JsonPath | undefined {
  return findString(root, (text) => !text.isWellFormed())?.map((step) =>
    typeof step === "string" ? step.toWellFormed() : step,
  );
}
