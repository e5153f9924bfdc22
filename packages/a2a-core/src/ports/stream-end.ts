/**
 * Why a stream ended: its task's `final` frame went out, it was ended otherwise (an outage, the task
 * vanished), the server shut down, the client went away, or the client fell too far behind.
 */
export type StreamEndReason = "final" | "closed" | "shutdown" | "client_gone" | "too_slow";

/** What is known of a stream once it has ended (telemetry reads it). */
export interface EndedStream {
  /** How it ended (undefined: it had not, which reads as `closed`). */
  readonly endReason: StreamEndReason | undefined;
  /** Sequence number of the last event it sent. */
  readonly cursor: number;
}
