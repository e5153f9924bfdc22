import { installTestTelemetry } from "@a2a-partner/test-support/telemetry";
import { afterAll, describe, expect, it } from "vitest";
import { harnessPerTest, readFrames, startParams } from "./support/handler-harness.js";

// Metrics without tracing: the API hands out placeholder spans, and the handler keeps none of them.
const otel = installTestTelemetry({ traces: false });
afterAll(() => otel.shutdown());
const harness = harnessPerTest();

describe("metrics without a tracer", () => {
  it("count a stream in and out again, and the request and task it belongs to", async () => {
    const h = harness();
    const started = await otel.sum("a2a.tasks.started");
    const res = await h.call({ jsonrpc: "2.0", id: "s", method: "SendStreamingMessage", params: startParams("go") });
    const frames = await readFrames(res);
    expect(frames.at(-1)?.event).toBe("final");

    expect(await otel.sum("a2a.tasks.started")).toBe(started + 1);
    expect(await otel.count("a2a.server.request.duration", { "rpc.method": "SendStreamingMessage" })).toBeGreaterThan(
      0,
    );
    expect(await otel.sum("a2a.server.open_streams")).toBe(0);
    expect(otel.spans()).toEqual([]);
  });
});
