import { context, TraceFlags, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { createPinoLogger } from "./pino-logger.js";
import { startTelemetry, type Telemetry } from "./start-telemetry.js";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const SPAN_ID = "b7ad6b7169203331";

describe("log lines", () => {
  let telemetry: Telemetry | undefined;
  afterAll(() => telemetry?.stop());

  it("written while a span is active carry its trace_id and span_id, across awaits; others carry none", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = { write: (line: string) => lines.push(JSON.parse(line)) };
    const logger = createPinoLogger({ level: "info", service: "test", destination });
    // The server's own start-up with telemetry on (here the scrape port only): what keeps the context.
    telemetry = await startTelemetry({ metricsPort: 0, metricsHost: "127.0.0.1", serviceName: "test" }, logger, {});
    // A span as a request continuing a caller's traceparent has it (recorded or not).
    const span = trace.wrapSpanContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });

    await context.with(trace.setSpan(context.active(), span), async () => {
      logger.info("before an await");
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.warn({ taskId: "t-1" }, "after an await");
    });
    logger.info("outside any span");

    const byMessage = new Map(lines.map((line) => [line.msg, line]));
    for (const msg of ["before an await", "after an await"]) {
      expect(byMessage.get(msg)).toMatchObject({ trace_id: TRACE_ID, span_id: SPAN_ID });
    }
    expect(byMessage.get("after an await")).toMatchObject({ taskId: "t-1" });
    expect(byMessage.get("outside any span")).not.toHaveProperty("trace_id");
    expect(byMessage.get("outside any span")).toMatchObject({ service: "test", level: 30 });
    expect(byMessage.get("outside any span")?.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});
