import { type DiagLogger, DiagLogLevel } from "@opentelemetry/api";
import type { Logger } from "../logger.ts";

/** `OTEL_LOG_LEVEL`'s values (case-insensitive), as the OpenTelemetry JS SDK reads them. */
const LEVELS: Readonly<Record<string, DiagLogLevel>> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};

/**
 * How much of the SDK's own diagnostics reach the log: `OTEL_LOG_LEVEL` when set to a known level, else
 * warnings and errors (an export that keeps failing, a misconfigured exporter). The SDK alone says
 * nothing unless `OTEL_LOG_LEVEL` is set, and then on the console, outside the server's JSON log.
 */
export function sdkDiagnosticsLevel(env: NodeJS.ProcessEnv): DiagLogLevel {
  return LEVELS[env.OTEL_LOG_LEVEL?.trim().toUpperCase() ?? ""] ?? DiagLogLevel.WARN;
}

/**
 * The SDK reports an error it caught (a failed export among them) as the error's JSON text: read back, it
 * becomes the line's `err`, and its message the line's own.
 */
function caughtError(message: string): { message: string; stack?: string } | undefined {
  if (!message.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(message) as { message?: unknown; stack?: unknown };
    return typeof parsed.message === "string"
      ? { message: parsed.message, ...(typeof parsed.stack === "string" ? { stack: parsed.stack } : {}) }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK's diagnostics as the server's own log lines (`component: "opentelemetry"`). */
export function sdkDiagnosticsLogger(logger: Logger): DiagLogger {
  const log = logger.child({ component: "opentelemetry" });
  const forward =
    (level: "error" | "warn" | "info" | "debug" | "trace") =>
    (message: string, ...args: unknown[]) => {
      const caught = caughtError(message);
      const err = caught ?? args.find((arg) => arg instanceof Error);
      const details = args.filter((arg) => arg !== err);
      log[level]({ ...(err ? { err } : {}), ...(details.length > 0 ? { details } : {}) }, caught?.message ?? message);
    };
  return {
    error: forward("error"),
    warn: forward("warn"),
    info: forward("info"),
    debug: forward("debug"),
    verbose: forward("trace"),
  };
}
