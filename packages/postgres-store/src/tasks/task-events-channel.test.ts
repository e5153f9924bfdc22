import { describe, expect, it } from "vitest";
import { CARRIED_ENTRY_MAX_BYTES, parseTaskEventsPayload, taskEventsEntry } from "./task-events-channel.js";

const A = "7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b11";
const B = "0b8e7f9a-5a1b-4c3d-8e9f-0a1b2c3d4e5f";

/** A `task_events` row of task `A` as a commit stores it, as JSON. */
const row = (seq: number, text = "on my way, aisle 5") =>
  JSON.stringify({
    task_id: A,
    seq,
    event: "update",
    created_at: "2026-12-06T10:00:00.000Z",
    result: {
      kind: "status-update",
      taskId: A,
      contextId: "ctx",
      final: false,
      status: { state: "working", timestamp: "2026-12-06T10:00:00.000Z", message: undefined },
      metadata: { text },
    },
  });

/** How the previous release reads a payload (its parseTaskEventsPayload, verbatim). */
function previousReleaseReads(payload: string): Array<[string, number | undefined]> {
  const out: Array<[string, number | undefined]> = [];
  for (const part of payload.split(",")) {
    const [taskId = "", seqText = ""] = part.trim().split(" ");
    if (taskId === "") continue;
    const seq = Number(seqText);
    out.push([taskId.toLowerCase(), Number.isInteger(seq) && seq > 0 ? seq : undefined]);
  }
  return out;
}

describe("the task events channel's payload", () => {
  it("carries small events, and reads them back as the log's rows", () => {
    const payload = [taskEventsEntry(A, 4, 3, [row(3), row(4)]), taskEventsEntry(B, 9, 9, [])].join(",");
    const [first, second] = parseTaskEventsPayload(payload);
    expect(first?.taskId).toBe(A);
    expect(first?.seq).toBe(4);
    expect(first?.carried?.fromSeq).toBe(3);
    expect(first?.carried?.read().map((event) => [event.taskId, event.seq, event.event, event.createdAt])).toEqual([
      [A, 3, "update", "2026-12-06T10:00:00.000Z"],
      [A, 4, "update", "2026-12-06T10:00:00.000Z"],
    ]);
    // Rows that are not the ones announced (here: none for seq 9) are not carried events.
    expect(second?.carried?.read()).toEqual([]);
  });

  it("names the task only when its events take more than an entry may carry", () => {
    const large = taskEventsEntry(A, 2, 2, [row(2, "é".repeat(CARRIED_ENTRY_MAX_BYTES / 2))]);
    expect(large).toBe(`${A} 2`);
    expect(parseTaskEventsPayload(large)).toEqual([{ taskId: A, seq: 2 }]);
  });

  it("reads a payload of the previous release, and that release reads this one's names and numbers", () => {
    expect(parseTaskEventsPayload(`${A} 3,${B.toUpperCase()} 9`)).toEqual([
      { taskId: A, seq: 3 },
      { taskId: B, seq: 9 },
    ]);
    const payload = [taskEventsEntry(A, 4, 3, [row(3, "restock, then 2 more"), row(4)]), `${B} 9`].join(",");
    const read = previousReleaseReads(payload);
    // It takes every entry's task and number, and the parts of the JSON name no task it could watch.
    expect(read.filter(([taskId]) => taskId === A || taskId === B)).toEqual([
      [A, 4],
      [B, 9],
    ]);
  });

  it("reads a malformed payload as the previous release did, carrying nothing", () => {
    expect(parseTaskEventsPayload(`${A} 4 3 9999 [{"seq":3}]`)).toEqual([{ taskId: A, seq: 4 }]);
    expect(parseTaskEventsPayload("")).toEqual([]);
    expect(parseTaskEventsPayload(",,,")).toEqual([]);
    expect(parseTaskEventsPayload(`${A} x`)).toEqual([{ taskId: A, seq: undefined }]);
    // An empty entry: the scan would take ",<B>" for a task id; the earlier reading finds both.
    expect(parseTaskEventsPayload(`${A} 3,,${B} 4`)).toEqual([
      { taskId: A, seq: 3 },
      { taskId: B, seq: 4 },
    ]);
  });
});
