/**
 * The bytes a value says it holds (a compact message: its JSON text), counted instead of walking it: its
 * members are made on each read, so walking it would count (and build) what it does not keep.
 */
export const HELD_BYTES: unique symbol = Symbol("a2a.heldBytes");

/**
 * Roughly what a JSON-shaped value holds on V8's heap, in bytes: a header per object and array, a slot
 * per property and element, a string's characters. Within a small factor of a heap snapshot, and what
 * matters here: data shaped as thousands of tiny containers weighs what it costs, not its JSON length
 * (16 KiB of `[[],[],…]` is ~5,000 arrays). One walk, done once when a task is cached; it stops
 * counting past `limit` (the answer is then just "over").
 */
export function estimateHeapBytes(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  // Only containers with members wait on the stack: strings and empty containers (thousands of them in
  // the heaviest shapes) are counted where they are met, so the walk itself stays small.
  const stack: object[] = [];
  let total = sizeOrPush(value, stack);
  while (stack.length > 0 && total <= limit) {
    const item = stack.pop() as object;
    if (Array.isArray(item)) {
      total += ARRAY_HEADER + SLOT * item.length;
      for (const element of item) total += sizeOrPush(element, stack);
    } else {
      total += OBJECT_HEADER;
      for (const key in item) total += PROPERTY + sizeOrPush((item as Record<string, unknown>)[key], stack);
    }
  }
  return total;
}

/**
 * The size of a string or an empty container; a container with members is pushed for the walk instead
 * (0). Numbers, booleans and null live in the slot already counted (a double is a 16-byte box at most).
 */
function sizeOrPush(member: unknown, stack: object[]): number {
  if (typeof member === "string") return STRING_HEADER + member.length;
  if (typeof member !== "object" || member === null) return 0;
  const held = (member as { [HELD_BYTES]?: number })[HELD_BYTES];
  if (held !== undefined) return held;
  if (Array.isArray(member) ? member.length === 0 : isEmptyObject(member)) {
    return Array.isArray(member) ? ARRAY_HEADER : OBJECT_HEADER;
  }
  stack.push(member);
  return 0;
}

function isEmptyObject(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

const SLOT = 8;
/** A JSArray and its backing store's header. */
const ARRAY_HEADER = 48;
/** A JSObject with its map pointer, properties and elements, and a few in-object slots. */
const OBJECT_HEADER = 56;
/** A property: its value slot and its share of the descriptor array / dictionary entry. */
const PROPERTY = 24;
const STRING_HEADER = 24;
