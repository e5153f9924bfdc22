import type { PushFailureReason, PushMeasurements } from "@a2a-partner/a2a-core";
import { describe, expect, it } from "vitest";
import type { MeasurementsReport } from "./messages.js";
import { recordReport, WorkerPushTelemetry } from "./worker-push-telemetry.js";

/** A PushMeasurements that writes down every call. */
function recorder() {
  const calls: string[] = [];
  const measurements: PushMeasurements = {
    attempted: () => calls.push("attempted"),
    delivered: (lagMs) => calls.push(`delivered ${lagMs}`),
    failed: (reason: PushFailureReason) => calls.push(`failed ${reason}`),
    givenUp: () => calls.push("givenUp"),
  };
  return { calls, measurements };
}

describe("the dispatch thread's measurements, reported to the thread that started it", () => {
  it("arrive there as measured: every attempt, each lag, failures by reason, give-ups", () => {
    const reports: MeasurementsReport[] = [];
    const thread = new WorkerPushTelemetry((report) => reports.push(report));
    thread.attempted();
    thread.attempted();
    thread.attempted();
    thread.delivered(12);
    thread.failed("timeout");
    thread.failed("status");
    thread.failed("status");
    thread.givenUp();
    thread.close();
    // Nothing more to report: no empty message.
    thread.flush();
    expect(reports).toHaveLength(1);

    const { calls, measurements } = recorder();
    // As the starting thread receives it: a structured clone.
    for (const report of reports) recordReport(structuredClone(report), measurements);
    expect(calls.sort()).toEqual(
      [
        "attempted",
        "attempted",
        "attempted",
        "delivered 12",
        "failed timeout",
        "failed status",
        "failed status",
        "givenUp",
      ].sort(),
    );
  });

  it("are reported on a timer, not one message per notification", async () => {
    const reports: MeasurementsReport[] = [];
    const thread = new WorkerPushTelemetry((report) => reports.push(report));
    for (let i = 0; i < 100; i++) thread.delivered(i);
    expect(reports).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(reports).toHaveLength(1);
    expect(reports[0]?.lagsMs).toHaveLength(100);
    thread.close();
  });
});
