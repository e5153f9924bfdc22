import type { PushFailureReason, PushMeasurements } from "@a2a-partner/a2a-core";
import type { MeasurementsReport } from "./messages.js";

/** How often the dispatch thread hands its measurements over: one message, not one per notification. */
const REPORT_EVERY_MS = 500;

/**
 * The dispatch thread's `PushMeasurements`: the OpenTelemetry SDK (and its exporters) runs on the
 * thread that started it, so this one gathers its measurements and reports them there every half second,
 * where `recordReport` puts them into that thread's `PushMeasurements`.
 */
export class WorkerPushTelemetry implements PushMeasurements {
  private report = emptyReport();
  private readonly send: (report: MeasurementsReport) => void;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(send: (report: MeasurementsReport) => void) {
    this.send = send;
    this.timer = setInterval(() => this.flush(), REPORT_EVERY_MS);
    this.timer.unref();
  }

  attempted(): void {
    this.report.attempted++;
  }

  delivered(lagMs: number): void {
    this.report.lagsMs.push(lagMs);
  }

  failed(reason: PushFailureReason): void {
    this.report.failed[reason] = (this.report.failed[reason] ?? 0) + 1;
  }

  givenUp(): void {
    this.report.givenUp++;
  }

  /** Reports what was measured since the last report, if anything; `close` stops the timer. */
  flush(): void {
    const { report } = this;
    if (report.attempted === 0 && report.lagsMs.length === 0 && report.givenUp === 0 && isEmpty(report.failed)) return;
    this.report = emptyReport();
    this.send(report);
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}

/** Records a dispatch thread's report as measured here. */
export function recordReport(report: MeasurementsReport, into: PushMeasurements): void {
  for (let i = 0; i < report.attempted; i++) into.attempted();
  for (const lagMs of report.lagsMs) into.delivered(lagMs);
  for (const [reason, count] of Object.entries(report.failed) as Array<[PushFailureReason, number]>) {
    for (let i = 0; i < count; i++) into.failed(reason);
  }
  for (let i = 0; i < report.givenUp; i++) into.givenUp();
}

function emptyReport(): MeasurementsReport {
  return { kind: "measurements", attempted: 0, lagsMs: [], failed: {}, givenUp: 0 };
}

function isEmpty(record: object): boolean {
  for (const _ in record) return false;
  return true;
}
