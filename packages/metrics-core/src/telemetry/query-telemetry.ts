import { MeterInstruments, type OtelApi, otelApi } from "@a2a-partner/a2a-core";
import type { Attributes, Histogram, Span, Tracer } from "@opentelemetry/api";
import type { MetricsWindow } from "../window/parse-metrics-window.js";

/** Names this package reports under; docs/operations.md lists them for operators. */
export const METRICS_QUERY_SCOPE = "@a2a-partner/metrics-core";
export const METRICS_QUERY_SPAN = "a2a.metrics.query";
/** Histogram (s): one metrics statement, by window kind. */
export const METRICS_QUERY_DURATION = "a2a.metrics.query.duration";
export const WINDOW_KIND_ATTRIBUTE = "a2a.metrics.window.kind";

/** Which bounds a window has: both, only a start, only an end, or none (everything stored). */
export type WindowKind = "bounded" | "from" | "until" | "all";

export function windowKind(window: MetricsWindow): WindowKind {
  if (window.start !== null) return window.end !== null ? "bounded" : "from";
  return window.end !== null ? "until" : "all";
}

const QUERY_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics query's span and duration through `@opentelemetry/api` only (a no-op without an SDK). */
class QueryTelemetry {
  private readonly tracer: Tracer | undefined;
  private readonly duration: MeterInstruments<Histogram> | undefined;
  private readonly byKind: Record<WindowKind, Attributes> = {
    bounded: Object.freeze({ [WINDOW_KIND_ATTRIBUTE]: "bounded" }),
    from: Object.freeze({ [WINDOW_KIND_ATTRIBUTE]: "from" }),
    until: Object.freeze({ [WINDOW_KIND_ATTRIBUTE]: "until" }),
    all: Object.freeze({ [WINDOW_KIND_ATTRIBUTE]: "all" }),
  };

  constructor(private readonly api: OtelApi | undefined) {
    this.tracer = api?.trace.getTracer(METRICS_QUERY_SCOPE);
    this.duration =
      api &&
      new MeterInstruments(api, METRICS_QUERY_SCOPE, (meter) =>
        meter.createHistogram(METRICS_QUERY_DURATION, {
          unit: "s",
          description: "Duration of one event-metrics statement, by window kind",
          advice: { explicitBucketBoundaries: QUERY_SECONDS_BUCKETS },
        }),
      );
  }

  start(workspaceUuid: string, kind: WindowKind): Span | undefined {
    const api = this.api;
    if (!api || !this.tracer) return undefined;
    return this.tracer.startSpan(METRICS_QUERY_SPAN, {
      kind: api.SpanKind.CLIENT,
      attributes: { "db.system.name": "postgresql", "a2a.workspace.id": workspaceUuid, [WINDOW_KIND_ATTRIBUTE]: kind },
    });
  }

  end(span: Span | undefined, kind: WindowKind, startedAt: number, error?: unknown): void {
    const api = this.api;
    if (!api) return;
    if (error === undefined) this.duration?.get().record((performance.now() - startedAt) / 1000, this.byKind[kind]);
    else if (span?.isRecording()) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span?.end();
  }
}

let shared: QueryTelemetry | undefined;

export function queryTelemetry(): QueryTelemetry {
  shared ??= new QueryTelemetry(otelApi());
  return shared;
}
