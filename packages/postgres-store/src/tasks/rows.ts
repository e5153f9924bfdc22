import type { StoredTaskEvent, TaskRecord } from "@a2a-partner/a2a-core";
import type { MessageV03, TaskUpdateResultV03, TaskV03 } from "@a2a-partner/a2a-core/protocol";
import { eventFromRow, messageFromRow, taskFromRow } from "./stored-shapes.js";

/** A `tasks` row as both drivers return it (`timestamptz` arrives as a Date; a string is tolerated). */
export interface TaskRow {
  id: string;
  workspace_id: string;
  message_id: string | null;
  /** The task as stored (stored-shapes.ts). */
  snapshot: TaskV03;
  /** The task's first message, kept apart from `snapshot` (migration 0006); null in rows written before. */
  first_message?: MessageV03 | null;
  last_seq: number;
  lease_owner: string | null;
  lease_expires_at: Date | string | null;
  created_at: Date | string;
}

export interface TaskEventRow {
  task_id: string;
  seq: number;
  event: StoredTaskEvent["event"];
  /** The event's result as stored (stored-shapes.ts). */
  result: TaskV03 | TaskUpdateResultV03;
  created_at: Date | string;
  /** For the seq-1 event: its task's `first_message`, which the stored result was written without. */
  first_message?: MessageV03 | null;
}

/** The columns `toTaskRecord` reads, for `select` and `returning` lists. */
export const TASK_COLUMNS =
  "id, workspace_id, message_id, snapshot, last_seq, lease_owner, lease_expires_at, created_at, first_message";
export const TASK_EVENT_COLUMNS = "task_id, seq, event, result, created_at";

/**
 * `TASK_EVENT_COLUMNS` of `task_events e`, plus the seq-1 event's `first_message` from its task (one
 * primary-key probe, for that event only): `toStoredEvent` puts it back into the result.
 */
export const TASK_EVENT_READ_COLUMNS =
  "e.task_id, e.seq, e.event, e.result, e.created_at, " +
  "case when e.seq = 1 then (select t.first_message from tasks t where t.id = e.task_id) end as first_message";

// A task's first message is written once (migration 0006): a row holds it in `first_message` and its
// snapshot (and its seq-1 event) without it; a null `first_message` means the whole task is in the
// snapshot (rows written before 0006, or by an instance of the previous release). Only a first message
// that is an object is kept apart, so a JSON null there can never be mistaken for "nothing apart".

/** SQL: the first message of the task JSON `json` (a jsonb expression) when it is kept apart, else null. */
export function firstMessageSql(json: string): string {
  return `case when jsonb_typeof(${json} #> '{history,0}') = 'object' then ${json} #> '{history,0}' end`;
}

/** SQL: the snapshot of the task JSON `json` as a row written by a start keeps it. */
export function snapshotApartSql(json: string): string {
  return `case when jsonb_typeof(${json} #> '{history,0}') = 'object' then ${json} #- '{history,0}' else ${json} end`;
}

/**
 * SQL: the snapshot `json` (the whole task, as a writer has it) as the row `t` keeps it: without its first
 * message when the row keeps that apart. History only grows at its end, so its first element is the
 * message the start put apart.
 */
export function storedSnapshotSql(json: string, row = "t"): string {
  return `case when ${row}.first_message is null then ${json} else ${json} #- '{history,0}' end`;
}

/**
 * The snapshot an event's commit stores, from one sent without its first message: as sent where the row
 * keeps that message apart (`first_message`), else (a row an older release wrote) with the first message
 * the row's snapshot already holds put back in front.
 */
export function snapshotAfterEventsSql(json: string, row = "t"): string {
  return `case when ${row}.first_message is not null or jsonb_array_length(coalesce(${row}.snapshot->'history', '[]'::jsonb)) = 0
    then ${json}
    else jsonb_set(${json}, '{history}', jsonb_build_array(${row}.snapshot->'history'->0) || coalesce(${json}->'history', '[]'::jsonb)) end`;
}

/** The whole stored task from a row's snapshot and its first message (parsed fresh, so changed in place). */
export function withFirstMessage(snapshot: TaskV03, first: MessageV03 | null | undefined): TaskV03 {
  if (first === null || first === undefined) return snapshot;
  snapshot.history = [first, ...(snapshot.history ?? [])];
  return snapshot;
}

/** The model's task from a row's snapshot and its first message. */
export function taskOfRow(snapshot: TaskV03, first: MessageV03 | null | undefined): TaskRecord["task"] {
  const task = taskFromRow(snapshot);
  if (first === null || first === undefined) return task;
  task.history = [messageFromRow(first), ...task.history];
  return task;
}

export function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * Every record is built from freshly parsed row values, so no two callers ever share an object and
 * nothing a caller does to a record reaches the database.
 */
export function toTaskRecord(row: TaskRow): TaskRecord {
  const record: TaskRecord = {
    workspaceId: row.workspace_id,
    task: taskOfRow(row.snapshot, row.first_message),
    lastSeq: row.last_seq,
    createdAt: toIso(row.created_at),
  };
  if (row.message_id !== null) record.messageId = row.message_id;
  if (row.lease_owner !== null && row.lease_expires_at !== null) {
    record.lease = { owner: row.lease_owner, expiresAt: toIso(row.lease_expires_at) };
  }
  return record;
}

export function toStoredEvent(row: TaskEventRow): StoredTaskEvent {
  return {
    taskId: row.task_id,
    seq: row.seq,
    event: row.event,
    result:
      row.first_message && row.seq === 1
        ? { task: taskOfRow(row.result as TaskV03, row.first_message) }
        : eventFromRow(row.result),
    createdAt: toIso(row.created_at),
  };
}

/** The format `tasks_status_at` (migration 0001) accepts before it casts; anything else reads as now(). */
const STATUS_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;

/**
 * A snapshot's `status_at` as the store writes it with the snapshot (migration 0005): its status
 * timestamp, sent as given for PostgreSQL to cast as the trigger would. Null when the trigger's rule would
 * not take it as is: the statement then leaves the column to the trigger, which applies the whole rule.
 */
export function statusAtOf(snapshot: { status: { timestamp?: unknown } }): string | null {
  const timestamp = snapshot.status.timestamp;
  return typeof timestamp === "string" && STATUS_TIMESTAMP.test(timestamp) ? timestamp : null;
}

/**
 * The SET of an update of `tasks t` that writes `status_at` with the snapshot (migration 0005), given the
 * SQL of the new value (null: none) and of the new `terminal`. Without a value the column keeps its old
 * one, which is what makes the table's trigger derive both columns from the snapshot instead.
 */
export function setStatusAt(statusAt: string, terminal: string): string {
  const value = `coalesce(${statusAt}, t.status_at)`;
  return `status_at = ${value}, final_status_at = case when ${terminal} then ${value} end`;
}

/**
 * Timestamps go to SQL as canonical ISO text (so PostgreSQL never guesses at a format); an unparseable
 * one is a caller bug, reported before any SQL runs.
 */
export function sqlTimestamp(value: string, what: string): string {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new TypeError(`${what} must be an ISO-8601 timestamp`);
  return new Date(time).toISOString();
}

/** A lease duration in milliseconds as SQL receives it; anything but a finite number is a caller bug. */
export function leaseDuration(durationMs: number): number {
  if (typeof durationMs !== "number" || !Number.isFinite(durationMs)) {
    throw new TypeError("lease.durationMs must be a finite number of milliseconds");
  }
  return durationMs;
}
