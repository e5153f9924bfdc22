/**
 * The dotted path of the first string (or key) holding U+0000, or undefined. PostgreSQL cannot store that
 * character in text or jsonb, so a start carrying it is refused at the edge instead of failing in the store.
 * Iterative, so no input can exhaust the stack.
 */
export function findNulCharacter(root: unknown, rootPath = "params"): string | undefined {
  const pending: Array<[unknown, string]> = [[root, rootPath]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return path;
    } else if (typeof value === "object" && value !== null) {
      // Reversed so the first offending field in document order is the one reported.
      for (const [key, item] of Object.entries(value).reverse()) {
        if (key.includes("\u0000")) return `${path}.${key.replaceAll("\u0000", "\\u0000")}`;
        pending.push([item, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}
