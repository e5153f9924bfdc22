import type { Logger } from "../../ports/logger.js";
import type { PushDelivery, PushDeliveryQueue } from "../../ports/push-deliveries.js";
import type { PushMeasurements } from "../../telemetry/push-telemetry.js";
import type { PushAttempts } from "./push-attempts.js";
import { backoffMs, nextAttemptAt } from "./retry-schedule.js";

/** What sending one delivery and recording a failure needs. */
export interface SendAndRecordOptions {
  deliveries: PushDeliveryQueue;
  owner: string;
  attempts: PushAttempts;
  logger: Logger;
  telemetry: PushMeasurements;
  now: () => Date;
  random: () => number;
  horizonMs: number;
  maxRetryWaitMs: number | undefined;
  /** A failed attempt is due again at this time (epoch ms): the dispatcher's loop must not sleep past it. */
  retryAt: (at: number) => void;
}

/**
 * Sends one delivery and records a failed attempt's outcome (retried with backoff, or given up past the
 * horizon); true when the receiver took it (its `complete` is the caller's). Never throws: an outcome that
 * could not be recorded is logged, and the delivery's lease lapses.
 */
export async function sendAndRecord(options: SendAndRecordOptions, delivery: PushDelivery): Promise<boolean> {
  const { deliveries, owner, logger, telemetry, now } = options;
  const outcome = await options.attempts.attempt(delivery);
  if (outcome.kind === "abandoned") return false;
  if (outcome.kind === "delivered") {
    telemetry.delivered(now().getTime() - Date.parse(delivery.durableAt));
    return true;
  }
  try {
    telemetry.failed(outcome.reason);
    const wait = backoffMs(delivery.attempt, outcome.retryAfterMs, options.random, options.maxRetryWaitMs);
    const retryAt = nextAttemptAt(delivery.durableAt, options.horizonMs, now(), wait);
    if (retryAt) {
      await deliveries.retry(owner, delivery, retryAt, outcome.error);
      options.retryAt(retryAt.getTime());
      logger.info({ ...identify(delivery), error: outcome.error, retryInMs: wait }, "push attempt failed; retrying");
    } else {
      await deliveries.giveUp(owner, delivery, outcome.error);
      telemetry.givenUp();
      logger.warn({ ...identify(delivery), lastError: outcome.error }, "push delivery given up past the horizon");
    }
  } catch (error) {
    // Its claim lapses and the delivery is retaken: at least once, duplicates dropped by webhook-id.
    logger.error({ ...identify(delivery), err: error }, "push dispatcher: could not record a delivery's outcome");
  }
  return false;
}

/** What a log line says of a delivery: never its URL, token or credentials. */
export function identify(delivery: PushDelivery) {
  return {
    taskId: delivery.event.taskId,
    configId: delivery.config.id,
    seq: delivery.event.seq,
    attempts: delivery.attempt,
  };
}
