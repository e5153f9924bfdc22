/** The OpenTelemetry side of the benches: an OTLP receiver that keeps nothing, and the server's trace settings. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** An OTLP/HTTP receiver that answers every export with 200 and keeps nothing. */
export async function startOtlpSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.once("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The standard OTEL_* variables that make the reference server export traces to `sinkUrl` (metrics stay
 * with the Prometheus reader): every span, or with `samplerRatio` the parent-based ratio sampler.
 */
export function otlpTracesEnv(sinkUrl: string, samplerRatio?: string): Record<string, string> {
  return {
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sinkUrl}/v1/traces`,
    ...(samplerRatio === undefined
      ? {}
      : { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: samplerRatio }),
  };
}
