/** The SSE event names of a task stream, in the order they occur. The one copy of these names. */
export const STREAM_EVENTS = ["task", "update", "finished", "final"] as const;
export type StreamEventName = (typeof STREAM_EVENTS)[number];

/** Events that are stored in the task's event log (and so can be replayed). `final` is transport-only. */
export type LoggedEventName = Exclude<StreamEventName, "final">;

export function isStreamEventName(value: string): value is StreamEventName {
  return (STREAM_EVENTS as readonly string[]).includes(value);
}
