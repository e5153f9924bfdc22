import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";
import { MeterInstruments } from "./meter-instruments.js";
import { ATTR, INSTRUMENTATION_SCOPE, METRIC, PUSH_LAG_MS_BUCKETS } from "./names.js";
import { type OtelApi, otelApi } from "./otel-api.js";

/**
 * Why a push attempt failed: no answer in time, no connection (refused, reset, DNS, a destination the
 * guard refused), a non-2xx status, or nothing to sign with (the workspace has no signing secret).
 */
export type PushFailureReason = "timeout" | "network" | "status" | "signing";

interface PushInstruments {
  attempts: Counter;
  delivered: Counter;
  failures: Counter;
  givenUp: Counter;
  lag: Histogram;
}

function createPushInstruments(meter: Meter): PushInstruments {
  return {
    attempts: meter.createCounter(METRIC.pushAttempts, { description: "Push requests sent to receivers" }),
    delivered: meter.createCounter(METRIC.pushDelivered, { description: "Push deliveries answered 2xx" }),
    failures: meter.createCounter(METRIC.pushFailures, {
      description: "Failed push attempts, by reason (timeout, network, status, signing)",
    }),
    givenUp: meter.createCounter(METRIC.pushGivenUp, {
      description: "Push deliveries given up past the retry horizon",
    }),
    lag: meter.createHistogram(METRIC.pushLag, {
      unit: "ms",
      description: "Time from an event becoming durable to its receiver's 2xx answer",
      advice: { explicitBucketBoundaries: PUSH_LAG_MS_BUCKETS },
    }),
  };
}

/**
 * What a push dispatcher measures: each attempt, each delivery with its lag (event durable → receiver's
 * 2xx, ms), each failed attempt with its reason, each delivery given up past the horizon.
 */
export interface PushMeasurements {
  /** A POST was sent to a receiver (every attempt, whatever its outcome). */
  attempted(): void;
  /** A receiver answered 2xx, `lagMs` after the event became durable. */
  delivered(lagMs: number): void;
  /** An attempt failed, and why. */
  failed(reason: PushFailureReason): void;
  /** A delivery was given up past the horizon. */
  givenUp(): void;
}

/**
 * The push dispatcher's metrics, through `@opentelemetry/api` only (no-ops without it or without an SDK):
 * `a2a.push.attempts`, `.delivered`, `.failures` (by reason), `.given_up` and the `.lag` histogram.
 */
export class PushTelemetry implements PushMeasurements {
  private readonly instruments: MeterInstruments<PushInstruments> | undefined;
  private readonly byReason = new Map<PushFailureReason, Attributes>();

  /** `api`: the `@opentelemetry/api` module to record through; by default the one installed, if any. */
  constructor(api: OtelApi | undefined = otelApi()) {
    this.instruments = api && new MeterInstruments(api, INSTRUMENTATION_SCOPE, createPushInstruments);
  }

  /** {@inheritDoc PushMeasurements.attempted} */
  attempted(): void {
    this.instruments?.get().attempts.add(1);
  }

  /** {@inheritDoc PushMeasurements.delivered} */
  delivered(lagMs: number): void {
    const instruments = this.instruments?.get();
    instruments?.delivered.add(1);
    instruments?.lag.record(Math.max(0, lagMs));
  }

  /** {@inheritDoc PushMeasurements.failed} */
  failed(reason: PushFailureReason): void {
    let attributes = this.byReason.get(reason);
    if (!attributes) {
      attributes = Object.freeze({ [ATTR.pushFailureReason]: reason });
      this.byReason.set(reason, attributes);
    }
    this.instruments?.get().failures.add(1, attributes);
  }

  /** {@inheritDoc PushMeasurements.givenUp} */
  givenUp(): void {
    this.instruments?.get().givenUp.add(1);
  }
}
