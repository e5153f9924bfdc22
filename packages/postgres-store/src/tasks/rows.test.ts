import { describe, expect, it } from "vitest";
import { sqlTimestamp, type TaskRow, toTaskRecord } from "./rows.js";

const TASK_ID = "7d0f4d3e-1c7a-4a53-9d1e-3f1f2a0c9b11";
const WORKSPACE_ID = "0b8e7f9a-5a1b-4c3d-8e9f-0a1b2c3d4e5f";
/** What the stored snapshot and the record's task have alike. */
const taskFields = { id: TASK_ID, contextId: "c", history: [], artifacts: [], metadata: { storeId: "s" } };
const statusTime = "2025-01-01T00:00:00.000Z";

const row = (overrides: Partial<TaskRow> = {}): TaskRow => ({
  id: TASK_ID,
  workspace_id: WORKSPACE_ID,
  message_id: null,
  snapshot: { kind: "task", ...taskFields, status: { state: "working", timestamp: statusTime } },
  last_seq: 3,
  lease_owner: "runner",
  lease_expires_at: new Date("2025-01-02T00:00:00Z"),
  created_at: new Date("2025-01-01T00:00:00Z"),
  ...overrides,
});

describe("toTaskRecord", () => {
  it("maps a row to the a2a-core record, timestamps as UTC ISO strings", () => {
    expect(toTaskRecord(row({ message_id: "m-1", created_at: "2025-01-01 02:00:00+02" }))).toEqual({
      workspaceId: WORKSPACE_ID,
      // The row holds v0.3's shape (stored-shapes.ts); the record is the model's task: no `kind`, the
      // state under its v1.0 name.
      task: { ...taskFields, status: { state: "TASK_STATE_WORKING", timestamp: statusTime } },
      lastSeq: 3,
      messageId: "m-1",
      lease: { owner: "runner", expiresAt: "2025-01-02T00:00:00.000Z" },
      createdAt: "2025-01-01T00:00:00.000Z",
    });
  });

  it("leaves out messageId and an incomplete lease", () => {
    const record = toTaskRecord(row({ lease_expires_at: null }));
    expect("messageId" in record).toBe(false);
    expect("lease" in record).toBe(false);
  });
});

describe("sqlTimestamp", () => {
  it("normalises to UTC ISO and rejects what is not a time", () => {
    expect(sqlTimestamp("2025-01-01T02:00:00+02:00", "t")).toBe("2025-01-01T00:00:00.000Z");
    expect(() => sqlTimestamp("soon", "lease.expiresAt")).toThrow(/lease.expiresAt must be an ISO-8601 timestamp/);
  });
});
