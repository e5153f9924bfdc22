// The client and a2a-core's real handler in one process with a real OpenTelemetry SDK: the client's
// traceparent makes the server's spans part of the application's trace.
import { createA2AHandler, createInMemoryStores, type TaskExecutor, toFetchHandler } from "@a2a-partner/a2a-core";
import { installTestTelemetry } from "@a2a-partner/test-support/telemetry";
import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { A2AClient, TaskNotFoundError } from "../src/index.js";

const otel = installTestTelemetry();

const executor: TaskExecutor = {
  async execute({ emit }) {
    await emit({ kind: "status", message: "step 1" });
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  },
};
const handler = createA2AHandler({
  stores: createInMemoryStores(),
  executor,
  authenticate: async () => ({ ok: true, workspaceId: "ws-a" }),
  recoveryIntervalMs: 0,
});
afterAll(async () => {
  await handler.close({ graceMs: 100 });
  await otel.shutdown();
});

const traceparents: (string | null)[] = [];
const serve = toFetchHandler(handler);
const client = new A2AClient({
  baseUrl: "http://server.test",
  token: "t",
  sleep: async () => {},
  fetch: async (input, init) => {
    traceparents.push(new Headers(init?.headers).get("traceparent"));
    // As if the server ran in another process: it knows the trace only from the headers.
    return context.with(ROOT_CONTEXT, () => serve(new Request(input, init)));
  },
});

describe("the client with an OpenTelemetry SDK", () => {
  it("sends its call's span as traceparent: the server's request span is its child, in the application's trace", async () => {
    const tracer = trace.getTracer("test-app");
    const { appSpan, taskId } = await tracer.startActiveSpan("restock job", async (span) => {
      const stream = client.sendStreamingMessage({ text: "Restock", storeId: "store-1" });
      for await (const _event of stream) {
        // read to the end
      }
      span.end();
      return { appSpan: span, taskId: stream.taskId as string };
    });

    const traceId = appSpan.spanContext().traceId;
    expect(traceparents.at(-1)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const clientSpan = otel.spansNamed("SendStreamingMessage").find((s) => s.kind === 2 /* CLIENT */);
    const serverSpan = otel
      .spansNamed("SendStreamingMessage")
      .find((s) => s.kind === 1 /* SERVER */ && s.attributes["a2a.task.id"] === taskId);
    expect(clientSpan?.parentSpanContext?.spanId).toBe(appSpan.spanContext().spanId);
    expect(serverSpan?.spanContext().traceId).toBe(traceId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    // The task and its stream belong to the same trace.
    const taskSpan = otel.spansNamed("a2a.task").find((s) => s.attributes["a2a.task.id"] === taskId);
    expect(taskSpan?.spanContext().traceId).toBe(traceId);
  });

  it("records a JSON-RPC error on its call's span", async () => {
    await expect(client.getTask("nope")).rejects.toBeInstanceOf(TaskNotFoundError);
    const failed = otel.spansNamed("GetTask").find((s) => s.kind === 2 && s.status.code === 2);
    expect(failed?.attributes).toMatchObject({ "rpc.method": "GetTask", "rpc.jsonrpc.error_code": -32001 });
    // Even with no span of the application's active, the call starts a trace the server continues.
    const server = otel.spansNamed("GetTask").find((s) => s.kind === 1);
    expect(server?.spanContext().traceId).toBe(failed?.spanContext().traceId);
  });
});
