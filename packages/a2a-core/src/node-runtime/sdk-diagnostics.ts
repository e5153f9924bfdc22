import type { DiagLogger, DiagLogLevel } from "@opentelemetry/api";
import type { RuntimeLogger } from "./runtime-logger.js";

/**
 * `OTEL_LOG_LEVEL`'s values, as the OpenTelemetry JS SDK names them, with the API's `DiagLogLevel`
 * numbers (written out: this entry loads without the optional `@opentelemetry/api` until telemetry starts).
 */
const LEVELS: Readonly<Record<string, DiagLogLevel>> = {
  NONE: 0,
  ERROR: 30,
  WARN: 50,
  INFO: 60,
  DEBUG: 70,
  VERBOSE: 80,
  ALL: 9999,
};
const WARN = LEVELS.WARN as DiagLogLevel;

/**
 * How much of the SDK's own diagnostics reach the log: `OTEL_LOG_LEVEL` (case-insensitive, surrounding
 * spaces ignored) when it names a level, else warnings and errors (`unknown` then holds what it said).
 * The SDK alone says nothing unless `OTEL_LOG_LEVEL` is set, and then on the console, outside the log.
 */
export function sdkDiagnosticsLevel(env: NodeJS.ProcessEnv): { level: DiagLogLevel; unknown?: string } {
  const given = env.OTEL_LOG_LEVEL?.trim() ?? "";
  const level = LEVELS[given.toUpperCase()];
  if (level !== undefined) return { level };
  return given === "" ? { level: WARN } : { level: WARN, unknown: given };
}

/** A line repeated within this long after it was logged is counted, not written again. */
const REPEAT_WINDOW_MS = 10_000;
/** Distinct lines remembered for that; past it the memory starts over (a line may then repeat once more). */
const MAX_REMEMBERED = 256;

/**
 * The SDK reports an error it caught (a failed export among them) as the error's JSON text: read back, it
 * becomes the line's `err` (its own fields: name, code, data, syscall, address …), and its message the line's.
 */
function caughtError(message: string): Error | undefined {
  if (!message.startsWith("{")) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(message) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof parsed.message !== "string") return undefined;
  // An Error again, so the log's error serializer treats it as one (its type, message, stack, own fields).
  const error = new Error(parsed.message);
  for (const [key, value] of Object.entries(parsed)) {
    if (key !== "message" && (value === null || typeof value !== "object")) Object.assign(error, { [key]: value });
  }
  return error;
}

/**
 * The SDK's diagnostics as the application's own log lines (`component: "opentelemetry"`). An exporter whose
 * collector refuses every export (a wrong path, a missing key) fails at the rate spans are batched: the
 * same line within REPEAT_WINDOW_MS is counted and reported with the next one written (`repeated`).
 */
export function sdkDiagnosticsLogger(logger: RuntimeLogger, now: () => number = Date.now): DiagLogger {
  const log = logger.child({ component: "opentelemetry" });
  const recent = new Map<string, { at: number; repeated: number }>();
  const forward =
    (level: "error" | "warn" | "info" | "debug" | "trace") =>
    (message: string, ...args: unknown[]) => {
      const caught = caughtError(message);
      let text = caught?.message ?? message;
      // A component's logger passes its name first: "OTLPExportDelegate", then what it says.
      if (!caught && typeof args[0] === "string") text = `${message}: ${args.shift() as string}`;
      const key = `${level} ${text}`;
      const seen = recent.get(key);
      const at = now();
      if (seen && at - seen.at < REPEAT_WINDOW_MS) {
        seen.repeated++;
        return;
      }
      if (recent.size >= MAX_REMEMBERED) recent.clear();
      recent.set(key, { at, repeated: 0 });
      const err = caught ?? args.find((arg) => arg instanceof Error);
      const details = args.filter((arg) => arg !== err);
      const repeated = seen?.repeated ?? 0;
      log[level](
        { ...(err ? { err } : {}), ...(details.length > 0 ? { details } : {}), ...(repeated > 0 ? { repeated } : {}) },
        text,
      );
    };
  return {
    error: forward("error"),
    warn: forward("warn"),
    info: forward("info"),
    debug: forward("debug"),
    verbose: forward("trace"),
  };
}
