import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { type DestinationStream, type Logger, pino } from "pino";

/**
 * Structured JSON logs on stderr, so stdout stays clean for CLI output (e.g. `seed`'s JSON line). A line
 * written inside a traced span carries `trace_id` and `span_id` (only once an OpenTelemetry SDK runs:
 * without one no context is kept across awaits). `destination` is for tests.
 */
export function createLogger(level: string, destination: DestinationStream = pino.destination(2)): Logger {
  return pino({ level, base: { service: "a2a-reference-server" }, mixin: traceFields }, destination);
}

function traceFields(): object {
  const span = trace.getSpanContext(context.active());
  // A new object every time: pino writes the line's own fields into the one the mixin returns.
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export type { Logger };
