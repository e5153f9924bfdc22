import type { HandedPushDelivery, PushFailureReason } from "@a2a-partner/a2a-core";

/** What a dispatch thread is started with: the instance it dispatches for, and the embedder's own data. */
export interface DispatchThreadStart {
  instanceId: string;
  data: unknown;
}

/** A dispatch thread's measurements since its last report (worker-push-telemetry.ts). */
export interface MeasurementsReport {
  kind: "measurements";
  attempted: number;
  lagsMs: number[];
  failed: Partial<Record<PushFailureReason, number>>;
  givenUp: number;
}

/** Messages to the dispatch thread: wake-ups, deliveries this thread's commits claimed for it, close. */
export type ToDispatchThread =
  | { kind: "wake" }
  | { kind: "handed"; deliveries: HandedPushDelivery[] }
  | { kind: "close"; graceMs: number };

/** Messages from it: its dispatcher takes hand-offs (as whom, for how long) or no longer does, closed, figures. */
export type FromDispatchThread =
  | { kind: "hand-off"; owner: string; leaseMs: number }
  | { kind: "hand-off-stop" }
  | { kind: "closed" }
  | MeasurementsReport;
