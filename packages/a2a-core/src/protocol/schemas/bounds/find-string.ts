/** A path into a JSON value: object keys and array indexes, as zod reports them. */
export type JsonPath = Array<string | number>;

/**
 * The path of the first string or object key (in document order) that `test` picks out in a JSON value,
 * or undefined. When it is a key, the key is the path's last element.
 *
 * Runs on every task start over content a partner shapes (16 KiB of JSON can be ~10,000 tiny arrays and
 * objects), so it walks without allocating per value: one frame per level of nesting, in three arrays
 * reused from value to value, and a path built only for the answer. Iterative, so no input can exhaust
 * the stack.
 */
export function findString(root: unknown, test: (text: string) => boolean): JsonPath | undefined {
  if (typeof root === "string") return test(root) ? [] : undefined;
  if (typeof root !== "object" || root === null) return undefined;
  // Level d: the container, its keys (undefined for an array), and the index of its next member.
  const containers: object[] = [root];
  const keyLists: Array<string[] | undefined> = [keysOf(root)];
  const next: number[] = [0];
  let depth = 1;
  while (depth > 0) {
    const level = depth - 1;
    const container = containers[level] as object;
    const keys = keyLists[level];
    const index = next[level] as number;
    let value: unknown;
    if (keys === undefined) {
      const array = container as unknown[];
      if (index >= array.length) {
        depth--;
        continue;
      }
      value = array[index];
    } else {
      if (index >= keys.length) {
        depth--;
        continue;
      }
      const key = keys[index] as string;
      if (test(key)) return pathTo(level, keyLists, next, key);
      value = (container as Record<string, unknown>)[key];
    }
    next[level] = index + 1;
    if (typeof value === "string") {
      if (test(value)) return pathTo(depth, keyLists, next);
    } else if (typeof value === "object" && value !== null && !isEmpty(value)) {
      containers[depth] = value;
      keyLists[depth] = keysOf(value);
      next[depth] = 0;
      depth++;
    }
  }
  return undefined;
}

/** Whether a container has no members; asked before its keys are listed, as that list is an allocation. */
function isEmpty(value: object): boolean {
  if (Array.isArray(value)) return value.length === 0;
  for (const _ in value) return false;
  return true;
}

function keysOf(value: object): string[] | undefined {
  return Array.isArray(value) ? undefined : Object.keys(value);
}

/** The path to the member each of the first `levels` levels is at (plus `key`, a key that was picked out). */
function pathTo(levels: number, keyLists: Array<string[] | undefined>, next: number[], key?: string): JsonPath {
  const path: JsonPath = [];
  for (let level = 0; level < levels; level++) {
    const at = (next[level] as number) - 1;
    const keys = keyLists[level];
    path.push(keys === undefined ? at : (keys[at] as string));
  }
  if (key !== undefined) path.push(key);
  return path;
}
