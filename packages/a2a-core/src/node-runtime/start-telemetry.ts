import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import type { IMetricReader } from "@opentelemetry/sdk-metrics";
import type { RuntimeLogger } from "./runtime-logger.js";
import { sdkDiagnosticsLevel, sdkDiagnosticsLogger } from "./sdk-diagnostics.js";

/** The running OpenTelemetry SDK of the process, if switched on. */
export interface Telemetry {
  /** The Prometheus scrape URL (`…/metrics`), when `metricsPort` is set. */
  metricsUrl: string | undefined;
  /** Flushes what is pending to the OTLP endpoint and stops the scrape endpoint. */
  stop(): Promise<void>;
}

/** Where the Prometheus scrape endpoint listens, and the service's name unless OTEL_SERVICE_NAME gives one. */
export interface TelemetryOptions {
  /** A Prometheus scrape endpoint on this port (0: any free port); unset: none. */
  metricsPort?: number | undefined;
  /** Its host; unset: loopback. */
  metricsHost?: string | undefined;
  /** `service.name` when OTEL_SERVICE_NAME is unset. */
  serviceName: string;
}

/** Whether the standard OTEL_* variables ask for an export (an endpoint, or an exporter named). */
export function otlpRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
  ].some((name) => Boolean(env[name]?.trim()));
}

/** OTLP metrics go out unless OTEL_METRICS_EXPORTER names something else ("none", "prometheus" …). */
function otlpMetricsRequested(env: NodeJS.ProcessEnv): boolean {
  const list = env.OTEL_METRICS_EXPORTER?.split(",").map((name) => name.trim().toLowerCase());
  return list === undefined || list.every((name) => name === "") || list.includes("otlp");
}

/**
 * An optional peer, loaded by a name no bundler resolves ahead of time: an app that bundles a package
 * importing this entry (postgres-store does, for its settings) and never starts telemetry needs none of
 * them installed.
 */
function optionalPeer<T>(name: string): Promise<T> {
  return import(name) as Promise<T>;
}

/**
 * Starts the OpenTelemetry Node SDK when asked to, before anything else is created (the cores report
 * through the global API it registers). Off by default: nothing is started, and the cores' telemetry
 * stays the API's no-op.
 * - `metricsPort`: a Prometheus scrape endpoint, `GET /metrics`, on its own listener (`metricsHost`,
 *   loopback by default, so it is never public by accident).
 * - the standard `OTEL_*` variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_TRACES_EXPORTER`,
 *   `OTEL_TRACES_SAMPLER`, `OTEL_SERVICE_NAME` …): traces, and metrics unless `OTEL_METRICS_EXPORTER`
 *   says otherwise, exported over OTLP.
 * The SDK's own diagnostics (a failing export above all) go to `logger` at warn and above, or at
 * `OTEL_LOG_LEVEL`.
 */
export async function startTelemetry(
  config: TelemetryOptions,
  logger: RuntimeLogger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Telemetry | undefined> {
  const otlp = otlpRequested(env);
  if (config.metricsPort === undefined && !otlp) return undefined;
  // Loaded only when switched on: a server without telemetry never loads the SDK.
  const [{ diag }, { OTLPMetricExporter }, { PrometheusExporter }, { PeriodicExportingMetricReader }, { NodeSDK }] =
    await Promise.all([
      optionalPeer<typeof import("@opentelemetry/api")>("@opentelemetry/api"),
      optionalPeer<typeof import("@opentelemetry/exporter-metrics-otlp-proto")>(
        "@opentelemetry/exporter-metrics-otlp-proto",
      ),
      optionalPeer<typeof import("@opentelemetry/exporter-prometheus")>("@opentelemetry/exporter-prometheus"),
      optionalPeer<typeof import("@opentelemetry/sdk-metrics")>("@opentelemetry/sdk-metrics"),
      optionalPeer<typeof import("@opentelemetry/sdk-node")>("@opentelemetry/sdk-node"),
    ]);
  // Before the exporters are built (they read their configuration then), and again after the SDK's
  // constructor.
  const diagnostics = sdkDiagnosticsLevel(env);
  const diagnosticsLogger = sdkDiagnosticsLogger(logger);
  const useLog = () =>
    diag.setLogger(diagnosticsLogger, { logLevel: diagnostics.level, suppressOverrideMessage: true });
  useLog();
  if (diagnostics.unknown !== undefined) {
    logger.warn(
      { OTEL_LOG_LEVEL: diagnostics.unknown },
      "OTEL_LOG_LEVEL names no level; logging the SDK's warnings and errors",
    );
  }
  const readers: IMetricReader[] = [];
  let prometheus: PrometheusExporter | undefined;
  if (config.metricsPort !== undefined) {
    prometheus = new PrometheusExporter({ preventServerStart: true });
    readers.push(prometheus);
  }
  if (otlp && otlpMetricsRequested(env)) {
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        ...(Number.isInteger(interval) && interval > 0 ? { exportIntervalMillis: interval } : {}),
      }),
    );
  }
  // The constructor installs a console logger of its own when OTEL_LOG_LEVEL is set; ours returns after it.
  diag.disable();
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || config.serviceName,
    metricReaders: readers,
    // Without an OTLP destination there is nowhere to send spans: no TracerProvider, spans stay no-ops.
    ...(otlp ? {} : { spanProcessors: [] }),
  });
  useLog();
  sdk.start();
  let scrape: Server | undefined;
  let metricsUrl: string | undefined;
  if (prometheus && config.metricsPort !== undefined) {
    const exporter = prometheus;
    scrape = createServer((req, res) => {
      if (req.method === "GET" && (req.url === "/metrics" || req.url?.startsWith("/metrics?"))) {
        exporter.getMetricsRequestHandler(req, res);
        return;
      }
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: scrape /metrics\n");
    });
    const server = scrape;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.metricsPort, config.metricsHost ?? "127.0.0.1", () => resolve());
    }).catch(async (error: unknown) => {
      await sdk.shutdown();
      diag.disable();
      throw error;
    });
    const address = server.address() as AddressInfo;
    const host = address.address.includes(":") ? `[${address.address}]` : address.address;
    metricsUrl = `http://${host}:${address.port}/metrics`;
  }
  logger.info({ metricsUrl, otlp }, "OpenTelemetry started");
  return {
    metricsUrl,
    async stop() {
      await new Promise<void>((resolve) => (scrape ? scrape.close(() => resolve()) : resolve()));
      await sdk.shutdown().catch((error: unknown) => logger.warn({ err: error }, "OpenTelemetry shutdown failed"));
      diag.disable();
    },
  };
}
