import { findString } from "../../protocol/schemas/bounds/find-string.js";

/**
 * The dotted path of the first string (or key) holding U+0000, or undefined. PostgreSQL cannot store that
 * character in text or jsonb, so a start carrying it is refused at the edge instead of failing in the store.
 */
export function findNulCharacter(root: unknown, rootPath = "params"): string | undefined {
  const path = findString(root, (text) => text.includes("\u0000"));
  if (!path) return undefined;
  return [rootPath, ...path].map((step) => String(step).replaceAll("\u0000", "\\u0000")).join(".");
}
