import type { CarriedEvents, StoredTaskEvent } from "@a2a-partner/a2a-core";
import { type TaskEventRow, toStoredEvent } from "./rows.js";

/**
 * The channel every write to a task's log NOTIFYs on. A payload is one or more entries separated by
 * commas, each naming a task that moved and its newest sequence number:
 *
 *   `<taskId> <newestSeq>`                                   (the events are in the log only)
 *   `<taskId> <newestSeq> <fromSeq> <length> <rows JSON>`   (the events `fromSeq..newestSeq` carried too)
 *
 * The rows JSON is an array of the `task_events` rows as the commit stored them, `length` UTF-16 code
 * units long: an instance that follows the task on another process sends them without reading the log.
 * The first two words of an entry are what every earlier release reads (it splits the payload at commas
 * and each part at spaces, and ignores the parts that name no task it watches), so both releases share a
 * channel during a rolling upgrade.
 */
export const TASK_EVENTS_CHANNEL = "a2a_task_events";

/**
 * An entry's size in bytes past which it names the task only. PostgreSQL refuses a payload of 8,000
 * bytes or more; a commit packs its entries into payloads of at most twice this (batch-statement.ts).
 */
export const CARRIED_ENTRY_MAX_BYTES = 3_900;

/** One entry of a notification: a task, its newest sequence number, and the events carried, if any. */
export interface TaskEventsEntry {
  taskId: string;
  seq: number | undefined;
  carried?: CarriedEvents;
}

/**
 * The entry a commit that stored `rows` (a task's new events as `task_events` rows in JSON, in order,
 * ending at `newestSeq`) notifies: carrying them when it fits in `CARRIED_ENTRY_MAX_BYTES`.
 */
export function taskEventsEntry(taskId: string, newestSeq: number, fromSeq: number, rows: readonly string[]): string {
  const named = `${taskId.toLowerCase()} ${newestSeq}`;
  const json = `[${rows.join(",")}]`;
  const entry = `${named} ${fromSeq} ${json.length} ${json}`;
  // A UTF-16 code unit takes one to three bytes of UTF-8: most entries are decided by their length alone.
  if (entry.length > CARRIED_ENTRY_MAX_BYTES) return named;
  if (entry.length * 3 <= CARRIED_ENTRY_MAX_BYTES) return entry;
  return Buffer.byteLength(entry) <= CARRIED_ENTRY_MAX_BYTES ? entry : named;
}

/** The entries of one notification, in order; a malformed payload is read the way earlier releases read it. */
export function parseTaskEventsPayload(payload: string): TaskEventsEntry[] {
  return scanEntries(payload) ?? namesOnly(payload);
}

/**
 * Reads the entries one after another; undefined at the first thing out of place. It runs for every
 * commit of every instance, so it reads the words and skips the rows JSON without copying or parsing it.
 */
function scanEntries(payload: string): TaskEventsEntry[] | undefined {
  const entries: TaskEventsEntry[] = [];
  let at = 0;
  /** The positive integer at `at` (moving past it), or undefined. */
  const integer = (): number | undefined => {
    let value = 0;
    const from = at;
    for (
      let code = payload.charCodeAt(at);
      code >= 48 && code <= 57 && at - from < 15;
      code = payload.charCodeAt(++at)
    ) {
      value = value * 10 + (code - 48);
    }
    return at > from && value > 0 ? value : undefined;
  };
  while (at < payload.length) {
    const space = payload.indexOf(" ", at);
    if (space <= at || payload.lastIndexOf(",", space) >= at) return undefined;
    const taskId = payload.slice(at, space).toLowerCase();
    at = space + 1;
    const seq = integer();
    if (seq === undefined) return undefined;
    const entry: TaskEventsEntry = { taskId, seq };
    if (payload.charCodeAt(at) === SPACE) {
      at++;
      const fromSeq = integer();
      if (fromSeq === undefined || fromSeq > seq || payload.charCodeAt(at++) !== SPACE) return undefined;
      const length = integer();
      if (length === undefined || payload.charCodeAt(at++) !== SPACE || at + length > payload.length) return undefined;
      entry.carried = carriedEvents(taskId, fromSeq, seq, payload, at, length);
      at += length;
    }
    entries.push(entry);
    if (at < payload.length && payload.charCodeAt(at++) !== COMMA) return undefined;
  }
  return entries;
}

const SPACE = 32;
const COMMA = 44;

/** Earlier releases' reading: each comma-separated part's first two words; malformed parts are skipped. */
function namesOnly(payload: string): TaskEventsEntry[] {
  const out: TaskEventsEntry[] = [];
  for (const part of payload.split(",")) {
    const [taskId = "", seqText = ""] = part.trim().split(" ");
    if (taskId === "") continue;
    out.push({ taskId: taskId.toLowerCase(), seq: positiveInteger(seqText) });
  }
  return out;
}

/**
 * The carried rows, parsed at the first `read()` (most entries reach a process that does not follow the
 * task, or that wrote the events itself). Empty when the JSON is not the rows it announced: the listener
 * then reads the log, as it would have without them.
 */
function carriedEvents(
  taskId: string,
  fromSeq: number,
  newestSeq: number,
  payload: string,
  at: number,
  length: number,
): CarriedEvents {
  let events: StoredTaskEvent[] | undefined;
  return {
    fromSeq,
    read: () => {
      events ??= parseRows(taskId, fromSeq, newestSeq, payload.slice(at, at + length));
      return events;
    },
  };
}

function parseRows(taskId: string, fromSeq: number, newestSeq: number, json: string): StoredTaskEvent[] {
  try {
    const rows = JSON.parse(json) as TaskEventRow[];
    if (!Array.isArray(rows) || rows.length !== newestSeq - fromSeq + 1) return [];
    const events = rows.map((row, index) => {
      // Seq 1 is written by a start, whose first message the row keeps apart: never carried.
      if (String(row.task_id).toLowerCase() !== taskId || row.seq !== fromSeq + index || row.seq === 1) {
        throw new Error("not the rows");
      }
      // As a read of the log returns it: PostgreSQL writes a uuid in lower case.
      return toStoredEvent({ ...row, task_id: taskId });
    });
    return events;
  } catch {
    return [];
  }
}

function positiveInteger(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  const value = Number(text);
  return value > 0 ? value : undefined;
}
