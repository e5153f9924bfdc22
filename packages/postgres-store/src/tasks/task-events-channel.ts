/**
 * The channel every write to a task's log NOTIFYs on. The payload names the tasks that moved and their
 * newest sequence numbers: "<taskId> <seq>", several separated by commas.
 */
export const TASK_EVENTS_CHANNEL = "a2a_task_events";

/** The (taskId, newest seq) pairs of one notification; malformed parts are skipped. */
export function parseTaskEventsPayload(payload: string): Array<[taskId: string, seq: number | undefined]> {
  const out: Array<[string, number | undefined]> = [];
  for (const part of payload.split(",")) {
    const [taskId = "", seqText = ""] = part.trim().split(" ");
    if (taskId === "") continue;
    const seq = Number(seqText);
    out.push([taskId.toLowerCase(), Number.isInteger(seq) && seq > 0 ? seq : undefined]);
  }
  return out;
}
