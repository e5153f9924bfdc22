import type { Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import { METRIC, REQUEST_SECONDS_BUCKETS, TASK_SECONDS_BUCKETS } from "./names.js";

/** The handler's metric instruments, made once per MeterProvider. */
export interface Instruments {
  requestDuration: Histogram;
  errors: Counter;
  refusals: Counter;
  openStreams: UpDownCounter;
  eventsAppended: Counter;
  tasksStarted: Counter;
  tasksEnded: Counter;
  taskDuration: Histogram;
}

export function createInstruments(meter: Meter): Instruments {
  return {
    requestDuration: meter.createHistogram(METRIC.requestDuration, {
      unit: "s",
      description: "Duration of A2A JSON-RPC requests until the answer (for a stream: its first frame)",
      advice: { explicitBucketBoundaries: REQUEST_SECONDS_BUCKETS },
    }),
    errors: meter.createCounter(METRIC.errors, {
      description: "A2A requests answered with a JSON-RPC error, by method, error code and HTTP status",
    }),
    refusals: meter.createCounter(METRIC.refusals, {
      description: "A2A requests refused by a limit (rate limit, stream cap, in-flight bound, shutdown)",
    }),
    openStreams: meter.createUpDownCounter(METRIC.openStreams, { description: "SSE streams open now" }),
    eventsAppended: meter.createCounter(METRIC.eventsAppended, {
      description: "Task events made durable by this process, by event name",
    }),
    tasksStarted: meter.createCounter(METRIC.tasksStarted, { description: "Tasks created by this process" }),
    tasksEnded: meter.createCounter(METRIC.tasksEnded, {
      description: "Tasks whose end this process stored, by final state",
    }),
    taskDuration: meter.createHistogram(METRIC.taskDuration, {
      unit: "s",
      description: "Time from a task's creation to its end, by final state",
      advice: { explicitBucketBoundaries: TASK_SECONDS_BUCKETS },
    }),
  };
}
