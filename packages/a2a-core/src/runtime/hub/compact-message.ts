import type { TaskRecord } from "../../ports/task-records.js";
import type { Message } from "../../protocol/schemas/a2a.js";
import { estimateHeapBytes, HELD_BYTES } from "./heap-estimate.js";

/** The fields of a message that a partner can make large; the others are bounded ids and names. */
const BULKY_FIELDS: ReadonlySet<string> = new Set(["parts", "metadata"]);

/** A field lighter than this on the heap stays as it is: too small to be worth a parse on each read. */
const COMPACT_FROM_BYTES = 4 * 1024;

/** A field is held as JSON text only where its objects weigh more than this many times that text. */
const COMPACT_RATIO = 2;

/**
 * The message as a running or ended task holds it: a field whose objects weigh much more than its JSON
 * text (a partner's data or metadata shaped as thousands of tiny containers: 16 KiB of JSON is ~0.3 MiB of
 * objects) is kept as that text, and each read of it parses a fresh copy. Everything that reads a message
 * (JSON.stringify, structuredClone, a spread, `for…in`) sees the same fields in the same order, so no
 * reader can tell, except that a read costs a parse and writes are refused (the message is frozen: a
 * task's first message never changes). A message with nothing worth compacting is returned as it is.
 */
export function compactMessage(message: Message): Message {
  if (isCompact(message)) return message;
  const compacted: Record<string, unknown> = {};
  let held = estimateHeapBytes({});
  let worthIt = false;
  for (const [key, value] of Object.entries(message)) {
    const json = BULKY_FIELDS.has(key) ? textIfLighter(value) : undefined;
    if (json === undefined) {
      compacted[key] = value;
      held += estimateHeapBytes(key) + estimateHeapBytes(value);
      continue;
    }
    worthIt = true;
    Object.defineProperty(compacted, key, { enumerable: true, get: () => JSON.parse(json) });
    held += estimateHeapBytes(key) + estimateHeapBytes(json) + GETTER_BYTES;
  }
  if (!worthIt) return message;
  Object.defineProperty(compacted, HELD_BYTES, { value: held });
  return Object.freeze(compacted) as unknown as Message;
}

/** A message's fields in a2a.proto's order: a stored message serialises as ProtoJSON writes it. */
const MESSAGE_KEYS = [
  "messageId",
  "contextId",
  "taskId",
  "role",
  "parts",
  "metadata",
  "extensions",
  "referenceTaskIds",
];

/**
 * A copy of `message` with some plain fields set or added, its fields in a2a.proto's order, its
 * compacted fields carried over as they are, not parsed.
 */
export function withMessageFields(message: Message, fields: Partial<Message>): Message {
  const compact = isCompact(message);
  const copy: Record<string, unknown> = {};
  // Only a compacted message's fields are getters worth carrying over as they are.
  const descriptors = compact
    ? (Object.getOwnPropertyDescriptors(message) as Record<string | symbol, PropertyDescriptor>)
    : undefined;
  const keys = new Set([...MESSAGE_KEYS, ...Object.keys(message), ...Object.keys(fields)]);
  for (const key of keys) {
    if (key in fields) copy[key] = fields[key as keyof Message];
    else if (!Object.hasOwn(message, key)) continue;
    else if (descriptors) Object.defineProperty(copy, key, descriptors[key] as PropertyDescriptor);
    else copy[key] = message[key as keyof Message];
  }
  if (!descriptors) return copy as Message;
  Object.defineProperty(copy, HELD_BYTES, { value: descriptors[HELD_BYTES]?.value });
  return Object.freeze(copy) as unknown as Message;
}

/** The record with its task's first message compacted (a shallow copy; the record itself unchanged). */
export function withCompactFirstMessage(record: TaskRecord): TaskRecord {
  const [first, ...rest] = record.task.history;
  if (first === undefined) return record;
  const compacted = compactMessage(first);
  if (compacted === first) return record;
  return { ...record, task: { ...record.task, history: [compacted, ...rest] } };
}

/**
 * A value of a request as a start holds it across the store's wait (its `params.metadata`): read through
 * the function returned, which parses a fresh copy of its JSON text where its objects weigh much more
 * than that text (as compactMessage does for a message's fields), and returns the value itself otherwise.
 */
export function heldValue<T>(value: T): () => T {
  const json = textIfLighter(value);
  return json === undefined ? () => value : () => JSON.parse(json) as T;
}

function isCompact(message: Message): boolean {
  return Object.hasOwn(message, HELD_BYTES);
}

/** The value's JSON text when holding that text is much lighter than holding the value; else undefined. */
function textIfLighter(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const weight = estimateHeapBytes(value);
  if (weight < COMPACT_FROM_BYTES) return undefined;
  const json = JSON.stringify(value);
  return weight > COMPACT_RATIO * estimateHeapBytes(json) ? json : undefined;
}

/** An accessor and the closure behind it. */
const GETTER_BYTES = 128;
