import type { PushFailureReason, PushMeasurements } from "@a2a-partner/a2a-core";

/** A dispatch thread's measurements since its last report (dispatch-thread.ts). */
export interface MeasurementsReport {
  kind: "measurements";
  attempted: number;
  lagsMs: number[];
  failed: Partial<Record<PushFailureReason, number>>;
  givenUp: number;
}

/** How often the dispatch thread hands its measurements over: one message, not one per notification. */
const REPORT_EVERY_MS = 500;

/**
 * The dispatch thread's `PushMeasurements`: the OpenTelemetry SDK (and its Prometheus endpoint) runs on the
 * server's thread, so this one gathers its measurements and reports them there every half second, where
 * `recordReport` puts them into the server's own `PushTelemetry`.
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
