import { type OtelApi, otelApi } from "@a2a-partner/a2a-core";
import type { Span, TextMapSetter } from "@opentelemetry/api";

export const CLIENT_INSTRUMENTATION_SCOPE = "@a2a-partner/a2a-client";

const HEADER_SETTER: TextMapSetter<Headers> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

/**
 * The client's spans through `@opentelemetry/api` only: a CLIENT span per JSON-RPC call (retries
 * included; for a stream, until its headers arrive) whose context goes out as `traceparent`, so the
 * server's spans join the application's trace. Without the API, or without an SDK, nothing is sent.
 */
export class ClientTelemetry {
  private readonly api: OtelApi | undefined;

  constructor(api: OtelApi | undefined = otelApi()) {
    this.api = api;
  }

  /** Starts a call's span, a child of whatever span the application has active. */
  startCall(method: string, wireMethod: string): Span | undefined {
    const api = this.api;
    if (!api) return undefined;
    return api.trace.getTracer(CLIENT_INSTRUMENTATION_SCOPE).startSpan(method, {
      kind: api.SpanKind.CLIENT,
      attributes: { "rpc.system": "jsonrpc", "rpc.method": method, "rpc.method_original": wireMethod },
    });
  }

  /** Writes the call's trace context (`traceparent`, and whatever else the application propagates). */
  inject(span: Span | undefined, headers: Headers): void {
    const api = this.api;
    if (!api || !span) return;
    api.propagation.inject(api.trace.setSpan(api.context.active(), span), headers, HEADER_SETTER);
  }

  endCall(span: Span | undefined, error?: unknown): void {
    if (!span) return;
    if (error !== undefined && span.isRecording()) {
      const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
      if (typeof code === "number") span.setAttribute("rpc.jsonrpc.error_code", code);
      span.setAttribute("error.type", error instanceof Error ? error.name : "Error");
      span.setStatus({
        code: this.api?.SpanStatusCode.ERROR ?? 2,
        message: error instanceof Error ? error.message : "",
      });
    }
    span.end();
  }
}
