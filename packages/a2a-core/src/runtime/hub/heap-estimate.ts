/**
 * Roughly what a JSON-shaped value holds on V8's heap, in bytes: a header per object and array, a slot
 * per property and element, a string's characters. Within a small factor of a heap snapshot, and what
 * matters here: data shaped as thousands of tiny containers weighs what it costs, not its JSON length
 * (16 KiB of `[[],[],…]` is ~5,000 arrays). One walk, done once when a task is cached; it stops
 * counting past `limit` (the answer is then just "over").
 */
export function estimateHeapBytes(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) {
    const item = stack.pop();
    if (typeof item === "string") {
      total += STRING_HEADER + item.length;
    } else if (Array.isArray(item)) {
      total += ARRAY_HEADER + SLOT * item.length;
      for (const element of item) if (typeof element === "object" || typeof element === "string") stack.push(element);
    } else if (item !== null && typeof item === "object") {
      total += OBJECT_HEADER;
      for (const key in item) {
        total += PROPERTY;
        const member = (item as Record<string, unknown>)[key];
        if (typeof member === "object" || typeof member === "string") stack.push(member);
      }
    }
    // Numbers, booleans and null live in the slot already counted (a double is a 16-byte box at most).
  }
  return total;
}

const SLOT = 8;
/** A JSArray and its backing store's header. */
const ARRAY_HEADER = 48;
/** A JSObject with its map pointer, properties and elements, and a few in-object slots. */
const OBJECT_HEADER = 56;
/** A property: its value slot and its share of the descriptor array / dictionary entry. */
const PROPERTY = 24;
const STRING_HEADER = 24;
