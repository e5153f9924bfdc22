import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { type DestinationStream, type Logger, pino } from "pino";
import pinoPretty from "pino-pretty";

export interface LoggerOptions {
  /** `pretty`: coloured one-line-per-event text (pino-pretty); `json`: one JSON object per line. */
  format?: "json" | "pretty" | undefined;
  /** Where lines go (tests); stderr by default. */
  destination?: DestinationStream;
}

/**
 * Logs on stderr, so stdout stays clean for CLI output (e.g. `seed`'s JSON line): JSON lines with ISO-8601
 * `time` for collectors, or pino-pretty's readable lines for a person at a terminal (the default when
 * stderr is one). A line written inside a traced span carries `trace_id` and `span_id` (only once an
 * OpenTelemetry SDK runs: without one no context is kept across awaits). Fields: docs/operations.md#logs.
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const format = options.format ?? (process.stderr.isTTY ? "pretty" : "json");
  const destination =
    options.destination ??
    (format === "pretty"
      ? // In-process and synchronous, like the JSON destination: no line lost when the process exits.
        pinoPretty({
          destination: 2,
          sync: true,
          singleLine: true,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,service",
        })
      : pino.destination(2));
  return pino(
    {
      level,
      base: { service: "a2a-reference-server" },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: traceFields,
    },
    destination,
  );
}

function traceFields(): object {
  const span = trace.getSpanContext(context.active());
  // A new object every time: pino writes the line's own fields into the one the mixin returns.
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export type { Logger };
