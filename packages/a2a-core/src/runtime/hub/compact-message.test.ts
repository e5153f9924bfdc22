import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../../ports/task-records.js";
import type { Message } from "../../protocol/schemas/a2a.js";
import { compactMessage, withCompactFirstMessage, withMessageFields } from "./compact-message.js";
import { estimateHeapBytes } from "./heap-estimate.js";

/** A message at the request bounds: 16 KiB of JSON in each of data and metadata, as thousands of tiny containers. */
function messageAtBounds(): Message {
  return {
    messageId: "m-big",
    role: "ROLE_USER",
    parts: [{ text: "restock aisle 5" }, { data: { rows: Array.from({ length: 5_000 }, () => ({})) } }],
    metadata: { tags: Array.from({ length: 5_000 }, () => []) },
  };
}

describe("compactMessage", () => {
  it("holds a message of tiny containers as its JSON text: a fraction of the objects' weight", () => {
    const message = messageAtBounds();
    const compact = compactMessage(message);
    expect(compact).not.toBe(message);
    // ~0.5 MiB of objects; the text is ~30 KiB.
    expect(estimateHeapBytes(message)).toBeGreaterThan(400 * 1024);
    expect(estimateHeapBytes(compact)).toBeLessThan(40 * 1024);
  });

  it("reads as the message it was made from, in every way a message is read, fields in their order", () => {
    const message = messageAtBounds();
    const compact = compactMessage(message);
    expect(JSON.stringify(compact)).toBe(JSON.stringify(message));
    expect(structuredClone(compact)).toEqual(message);
    expect({ ...compact }).toEqual(message);
    expect(Object.keys(compact)).toEqual(Object.keys(message));
    expect(compact.parts[1]).toEqual(message.parts[1]);
  });

  it("gives a fresh copy on each read and refuses writes: what a task holds cannot be changed through it", () => {
    const compact = compactMessage(messageAtBounds());
    const parts = compact.parts;
    parts.length = 0;
    expect(compact.parts).toHaveLength(2);
    expect(compact.parts).not.toBe(compact.parts);
    expect(() => {
      (compact as { messageId?: string }).messageId = "other";
    }).toThrow(TypeError);
  });

  it("leaves a message of ordinary size as it is (no parse on each read)", () => {
    const message: Message = { role: "ROLE_USER", parts: [{ text: "x".repeat(16 * 1024) }] };
    expect(compactMessage(message)).toBe(message);
    const small: Message = { role: "ROLE_USER", parts: [{ text: "restock aisle 5" }], metadata: { a: 1 } };
    expect(compactMessage(small)).toBe(small);
  });

  it("sets fields as a spread would, in a2a.proto's order, without parsing what it holds, and compacts once", () => {
    const compact = compactMessage(messageAtBounds());
    const stored = withMessageFields(compact, { taskId: "t-1", contextId: "c-1" });
    expect(JSON.parse(JSON.stringify(stored))).toEqual({ ...messageAtBounds(), taskId: "t-1", contextId: "c-1" });
    expect(Object.keys(stored)).toEqual(["messageId", "contextId", "taskId", "role", "parts", "metadata"]);
    expect(estimateHeapBytes(stored)).toBe(estimateHeapBytes(compact));
    expect(compactMessage(stored)).toBe(stored);
  });
});

describe("withCompactFirstMessage", () => {
  it("compacts the first message of a record's task and leaves the record it was given alone", () => {
    const reply: Message = { role: "ROLE_AGENT", parts: [{ text: "done" }] };
    const record = {
      workspaceId: "ws",
      lastSeq: 3,
      createdAt: "2026-01-01T00:00:00.000Z",
      task: { id: "t", history: [messageAtBounds(), reply] },
    } as unknown as TaskRecord;
    const held = withCompactFirstMessage(record);
    expect(JSON.stringify(held)).toBe(JSON.stringify(record));
    expect(estimateHeapBytes(held)).toBeLessThan(estimateHeapBytes(record) / 10);
    expect(held.task.history[1]).toBe(reply);
    expect(estimateHeapBytes(record.task.history[0])).toBeGreaterThan(400 * 1024);
  });
});
