import { MeterInstruments, type OtelApi, otelApi } from "@a2a-partner/a2a-core";
import type { Attributes, Counter, Histogram, Meter, Span, SpanContext, SpanOptions, Tracer } from "@opentelemetry/api";

/** Names this package reports under; docs/operations.md lists them for operators. */
export const STORE_INSTRUMENTATION_SCOPE = "@a2a-partner/postgres-store";

export const STORE_SPAN = {
  /** One group commit: every pending event and row of the process in one statement. */
  commit: "a2a.store.commit",
  /** A conditional append by a writer that does not run the task (a cancel, an orphan, a shutdown). */
  append: "a2a.store.append",
  /** A task start: the task row and its first event (or the task its messageId already names). */
  startTask: "a2a.store.start_task",
} as const;

export const STORE_METRIC = {
  /** Histogram (s): one write's statement, by kind of write. */
  commitDuration: "a2a.store.commit.duration",
  /** Histogram: rows (events and other rows) one group commit stored. */
  batchSize: "a2a.store.batch.size",
  /** Counter: writes that failed, by kind of write. */
  writeErrors: "a2a.store.write.errors",
} as const;

export const STORE_ATTR = {
  write: "a2a.store.write",
  kind: "a2a.store.kind",
  dbSystem: "db.system.name",
  batchItems: "a2a.store.batch.items",
  batchEvents: "a2a.store.batch.events",
  batchRows: "a2a.store.batch.rows",
  batchTasks: "a2a.store.batch.tasks",
  taskId: "a2a.task.id",
  created: "a2a.task.created",
} as const;

export type WriteKind = "group_commit" | "append" | "start_task";

const SPAN_OF: Record<WriteKind, string> = {
  group_commit: STORE_SPAN.commit,
  append: STORE_SPAN.append,
  start_task: STORE_SPAN.startTask,
};

/** Commit latencies: a tenth of a millisecond to five seconds. */
const COMMIT_SECONDS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
/** Rows per group commit: one to the writer's bound. */
const BATCH_ROWS_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

interface Instruments {
  commitDuration: Histogram;
  batchSize: Histogram;
  writeErrors: Counter;
}

/** What a write reports when it ends. */
export interface WriteBatch {
  items: number;
  events: number;
  rows: number;
  tasks: number;
}

/**
 * The store's traces and metrics through `@opentelemetry/api` only (a no-op without it or without an
 * SDK). One per process: instruments are made once (again only when another MeterProvider is
 * registered), attribute sets are constants.
 */
export class StoreTelemetry {
  private readonly api: OtelApi | undefined;
  private readonly tracer: Tracer | undefined;
  private readonly instruments: MeterInstruments<Instruments> | undefined;
  private readonly byWrite: Record<WriteKind, Attributes> = {
    group_commit: Object.freeze({ [STORE_ATTR.write]: "group_commit" }),
    append: Object.freeze({ [STORE_ATTR.write]: "append" }),
    start_task: Object.freeze({ [STORE_ATTR.write]: "start_task" }),
  };

  constructor(api: OtelApi | undefined = otelApi()) {
    this.api = api;
    this.tracer = api?.trace.getTracer(STORE_INSTRUMENTATION_SCOPE);
    this.instruments = api && new MeterInstruments(api, STORE_INSTRUMENTATION_SCOPE, createInstruments);
  }

  /** The span a caller is in, for a batched write to link back to. */
  callerSpanContext(): SpanContext | undefined {
    const api = this.api;
    if (!api) return undefined;
    return api.trace.getSpanContext(api.context.active());
  }

  /** Starts a write's span (a child of the caller's, or linked to the callers of a batch). */
  startWrite(
    kind: WriteKind,
    storeKind: string | undefined,
    links?: readonly (SpanContext | undefined)[],
  ): Span | undefined {
    const api = this.api;
    if (!api || !this.tracer) return undefined;
    const options: SpanOptions = {
      kind: api.SpanKind.CLIENT,
      attributes: { [STORE_ATTR.dbSystem]: "postgresql", [STORE_ATTR.write]: kind },
    };
    if (storeKind && options.attributes) options.attributes[STORE_ATTR.kind] = storeKind;
    if (links) {
      // The callers' spans, once each (a task may have several events in one batch), at most 128.
      const seen = new Set<string>();
      options.links = [];
      for (const link of links) {
        if (!link || seen.has(link.spanId) || seen.size >= 128) continue;
        seen.add(link.spanId);
        options.links.push({ context: link });
      }
    }
    return this.tracer.startSpan(SPAN_OF[kind], options);
  }

  /** A write ended: its latency (and a group commit's size) measured, its span ended. */
  endWrite(kind: WriteKind, span: Span | undefined, startedAt: number, batch?: WriteBatch, error?: unknown): void {
    const api = this.api;
    if (!api) return;
    const metrics = this.metrics();
    const attributes = this.byWrite[kind];
    if (error === undefined) {
      metrics.commitDuration.record((performance.now() - startedAt) / 1000, attributes);
      if (batch) metrics.batchSize.record(batch.events + batch.rows, attributes);
    } else {
      metrics.writeErrors.add(1, attributes);
    }
    if (!span) return;
    if (span.isRecording()) {
      if (batch) {
        span.setAttributes({
          [STORE_ATTR.batchItems]: batch.items,
          [STORE_ATTR.batchEvents]: batch.events,
          [STORE_ATTR.batchRows]: batch.rows,
          [STORE_ATTR.batchTasks]: batch.tasks,
        });
      }
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
    }
    span.end();
  }

  /** Called only with the API present (`endWrite` checks it first). */
  private metrics(): Instruments {
    return (this.instruments as MeterInstruments<Instruments>).get();
  }
}

function createInstruments(meter: Meter): Instruments {
  return {
    commitDuration: meter.createHistogram(STORE_METRIC.commitDuration, {
      unit: "s",
      description: "Duration of one store write statement (a group commit, an append, a task start)",
      advice: { explicitBucketBoundaries: COMMIT_SECONDS_BUCKETS },
    }),
    batchSize: meter.createHistogram(STORE_METRIC.batchSize, {
      unit: "{row}",
      description: "Rows (task events and rows riding along) stored by one group commit",
      advice: { explicitBucketBoundaries: BATCH_ROWS_BUCKETS },
    }),
    writeErrors: meter.createCounter(STORE_METRIC.writeErrors, {
      description: "Store writes that failed, by kind of write",
    }),
  };
}

let shared: StoreTelemetry | undefined;

/** The process's one store telemetry (its instruments are shared by every writer and store). */
export function storeTelemetry(): StoreTelemetry {
  shared ??= new StoreTelemetry();
  return shared;
}
