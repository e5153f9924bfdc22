import { DiagLogLevel } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import type { RuntimeLogger } from "./runtime-logger.js";
import { sdkDiagnosticsLevel, sdkDiagnosticsLogger } from "./sdk-diagnostics.js";

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A logger whose lines (pino's numbers for levels, fields, `msg`) land in `lines`. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const make = (bindings: Record<string, unknown>): RuntimeLogger => {
    const write = (level: keyof typeof LEVELS) => (obj: object, msg?: string) =>
      lines.push({ level: LEVELS[level], ...bindings, ...obj, msg });
    return {
      child: (more) => make({ ...bindings, ...more }),
      error: write("error"),
      warn: write("warn"),
      info: write("info"),
      debug: write("debug"),
      trace: write("trace"),
    };
  };
  return { logger: make({}), lines };
}

describe("the OpenTelemetry SDK's diagnostics in the application's log", () => {
  it("turns an error the SDK caught and printed as JSON back into the line's message and err, fields kept", () => {
    const { logger, lines } = capturingLogger();
    const error = Object.assign(new Error("Unauthorized"), { code: 401, data: "missing api key" });
    sdkDiagnosticsLogger(logger).error(
      JSON.stringify({
        stack: error.stack,
        message: error.message,
        name: "OTLPExporterError",
        code: 401,
        data: "missing api key",
      }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, component: "opentelemetry", msg: "Unauthorized" });
    expect(lines[0]?.err).toMatchObject({ name: "OTLPExporterError", code: 401, data: "missing api key" });
    expect(lines[0]?.err).toMatchObject({ stack: expect.stringContaining("Unauthorized") });
  });

  it("keeps a plain message and its arguments, and a component's name with what it says", () => {
    const { logger, lines } = capturingLogger();
    const diagnostics = sdkDiagnosticsLogger(logger);
    diagnostics.warn("exporter misconfigured", { endpoint: "x" }, new Error("bad url"));
    diagnostics.warn("OTLPExportDelegate", "Export failed", { status: 404 });
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: "exporter misconfigured",
      details: [{ endpoint: "x" }],
      err: { message: "bad url" },
    });
    expect(lines[1]).toMatchObject({ msg: "OTLPExportDelegate: Export failed", details: [{ status: 404 }] });
  });

  it("writes a line repeated within 10 s once, and the count with its next appearance", () => {
    const { logger, lines } = capturingLogger();
    let clock = 0;
    const diagnostics = sdkDiagnosticsLogger(logger, () => clock);
    for (let i = 0; i < 500; i++) diagnostics.error("span export failed", "Unauthorized");
    diagnostics.error("another failure");
    clock = 10_000;
    diagnostics.error("span export failed", "Unauthorized");
    expect(lines.map((line) => [line.msg, line.repeated])).toEqual([
      ["span export failed: Unauthorized", undefined],
      ["another failure", undefined],
      ["span export failed: Unauthorized", 499],
    ]);
  });

  it("logs warnings and errors unless OTEL_LOG_LEVEL names a level (in any case, spaces ignored)", () => {
    expect(sdkDiagnosticsLevel({})).toEqual({ level: DiagLogLevel.WARN });
    expect(sdkDiagnosticsLevel({ OTEL_LOG_LEVEL: " debug " })).toEqual({ level: DiagLogLevel.DEBUG });
    expect(sdkDiagnosticsLevel({ OTEL_LOG_LEVEL: "NONE" })).toEqual({ level: DiagLogLevel.NONE });
    expect(sdkDiagnosticsLevel({ OTEL_LOG_LEVEL: "loud" })).toEqual({ level: DiagLogLevel.WARN, unknown: "loud" });
  });
});
