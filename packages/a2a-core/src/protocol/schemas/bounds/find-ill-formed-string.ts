/** A path into a JSON value: object keys and array indexes, as zod reports them. */
export type JsonPath = Array<string | number>;

/** A path as a chain back to the root, so walking a deep value costs no copying; built only when needed. */
interface Step {
  key: string | number;
  parent: Step | undefined;
}

/**
 * The path of the first string or object key (in document order) that is not well-formed Unicode: one
 * holding a lone UTF-16 surrogate, which JSON's `\ud800` escape can produce. PostgreSQL refuses such text in
 * jsonb and silently replaces it with U+FFFD in text columns (so two different keys would collide), so
 * it is refused at the edge. A key is reported with its lone surrogates shown as U+FFFD, so the path itself
 * is well-formed. Iterative, so no input can exhaust the stack.
 */
export function findIllFormedString(root: unknown): JsonPath | undefined {
  const pending: Array<[unknown, Step | undefined]> = [[root, undefined]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, at] = next;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return pathOf(at);
    } else if (Array.isArray(value)) {
      // Reversed so the first offending field in document order is the one reported.
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], { key: i, parent: at }]);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value).reverse()) {
        if (!key.isWellFormed()) return pathOf({ key: key.toWellFormed(), parent: at });
        pending.push([item, { key, parent: at }]);
      }
    }
  }
  return undefined;
}

function pathOf(step: Step | undefined): JsonPath {
  const path: JsonPath = [];
  for (let at = step; at; at = at.parent) path.push(at.key);
  return path.reverse();
}
