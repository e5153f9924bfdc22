/**
 * The dotted path of the first string (or key) holding U+0000, or undefined. PostgreSQL cannot store that
 * character in text or jsonb, so a start carrying it is refused at the edge instead of failing in the store.
 */
export function findNulCharacter(value: unknown, path = "params"): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNulCharacter(item, `${path}.${index}`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\u0000")) return `${path}.${key.replaceAll("\u0000", "\\u0000")}`;
      const found = findNulCharacter(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}
