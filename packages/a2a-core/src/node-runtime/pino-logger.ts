import type { DestinationStream, Logger } from "pino";
import { otelApi } from "../telemetry/otel-api.js";

/** How `createPinoLogger` writes. */
export interface PinoLoggerOptions {
  /** pino's level (`logLevelSetting` reads LOG_LEVEL into one). */
  level: string;
  /**
   * `pretty`: coloured one-line-per-event text (pino-pretty); `json`: one JSON object per line. Unset:
   * pretty when stderr is a terminal.
   */
  format?: "json" | "pretty" | undefined;
  /** Every line's `service` field (left out of the pretty lines). */
  service: string;
  /** Where lines go (tests); stderr by default. */
  destination?: DestinationStream;
}

/**
 * A pino logger on stderr, so stdout stays clean for a CLI's output: JSON lines with an ISO-8601 `time`
 * for collectors, or pino-pretty's readable lines for a person at a terminal (the default when stderr is
 * one). A line written inside a traced span carries `trace_id` and `span_id` (once an OpenTelemetry SDK
 * runs: without one no context is kept across awaits). `pino` (and for the pretty format `pino-pretty`)
 * are optional peer dependencies, loaded when this is called.
 */
export function createPinoLogger(options: PinoLoggerOptions): Logger {
  const pino = optionalPeer<typeof import("pino")>("pino");
  const format = options.format ?? (process.stderr.isTTY ? "pretty" : "json");
  const destination =
    options.destination ??
    (format === "pretty"
      ? // In-process and synchronous, like the JSON destination: no line lost when the process exits.
        optionalPeer<typeof import("pino-pretty")>("pino-pretty")({
          destination: 2,
          sync: true,
          singleLine: true,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,service",
        })
      : pino.destination(2));
  return pino.pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: traceFields,
    },
    destination,
  );
}

function traceFields(): object {
  const api = otelApi();
  const span = api?.trace.getSpanContext(api.context.active());
  // A new object every time: pino writes the line's own fields into the one the mixin returns.
  return span && api?.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/**
 * An optional peer, required by a name no bundler resolves ahead of time (as `otelApi` finds the
 * OpenTelemetry API): an application that never creates a logger here needs neither package.
 */
function optionalPeer<T>(name: string): T {
  const nodeModule = process.getBuiltinModule("node:module");
  // The CommonJS build has __filename; the ES module build has import.meta.url.
  const from = typeof __filename === "string" ? __filename : import.meta.url;
  return nodeModule.createRequire(from)(name) as T;
}
