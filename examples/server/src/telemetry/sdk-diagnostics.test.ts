import { DiagLogLevel } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { sdkDiagnosticsLevel, sdkDiagnosticsLogger } from "./sdk-diagnostics.ts";

/** A logger whose JSON lines land in `lines`. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("trace", { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("the OpenTelemetry SDK's diagnostics in the server's log", () => {
  it("turns an error the SDK caught and printed as JSON back into the line's message and err", () => {
    const { logger, lines } = capturingLogger();
    const error = new Error("metrics export failed (connect ECONNREFUSED 127.0.0.1:4318)");
    sdkDiagnosticsLogger(logger).error(JSON.stringify({ stack: error.stack, message: error.message, name: "Error" }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, component: "opentelemetry", msg: error.message });
    expect(lines[0]?.err).toMatchObject({ stack: expect.stringContaining("ECONNREFUSED") });
  });

  it("keeps a plain message and its arguments", () => {
    const { logger, lines } = capturingLogger();
    sdkDiagnosticsLogger(logger).warn("exporter misconfigured", { endpoint: "x" }, new Error("bad url"));
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: "exporter misconfigured",
      details: [{ endpoint: "x" }],
      err: { message: "bad url" },
    });
  });

  it("logs warnings and errors unless OTEL_LOG_LEVEL, read as the SDK reads it, says otherwise", () => {
    expect(sdkDiagnosticsLevel({})).toBe(DiagLogLevel.WARN);
    expect(sdkDiagnosticsLevel({ OTEL_LOG_LEVEL: " debug " })).toBe(DiagLogLevel.DEBUG);
    expect(sdkDiagnosticsLevel({ OTEL_LOG_LEVEL: "NONE" })).toBe(DiagLogLevel.NONE);
    expect(sdkDiagnosticsLevel({ OTEL_LOG_LEVEL: "loud" })).toBe(DiagLogLevel.WARN);
  });
});
