import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  DataPointType,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

/**
 * A real OpenTelemetry SDK for a test file, registered globally as an application would: spans go to an
 * in-memory exporter as they end, metrics to an in-memory exporter when read. Register it before the code
 * under test creates its handler (as an application registers its SDK first).
 */
export interface TestTelemetry {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The spans named `name`. */
  spansNamed(name: string): ReadableSpan[];
  /** Every metric as of now (cumulative since the SDK was registered). */
  metrics(): Promise<MetricData[]>;
  /** Sum of a counter's (or up-down counter's) points whose attributes include `attributes`. */
  sum(name: string, attributes?: Record<string, unknown>): Promise<number>;
  /** Count of a histogram's measurements whose attributes include `attributes`. */
  count(name: string, attributes?: Record<string, unknown>): Promise<number>;
  /** The histogram's points whose attributes include `attributes`. */
  histogram(name: string, attributes?: Record<string, unknown>): Promise<HistogramMetricData["dataPoints"]>;
  shutdown(): Promise<void>;
}

interface Point {
  attributes: Record<string, unknown>;
  value: unknown;
}

/** `traces: false`: a MeterProvider only, as an operator running metrics without tracing registers. */
export function installTestTelemetry(options: { traces?: boolean } = {}): TestTelemetry {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (options.traces !== false) trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);

  const read = async (): Promise<MetricData[]> => {
    metricExporter.reset();
    await reader.forceFlush();
    return metricExporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
  };
  const points = async (name: string, attributes: Record<string, unknown>): Promise<Point[]> =>
    (await read())
      .filter((metric) => metric.descriptor.name === name)
      .flatMap((metric) => metric.dataPoints as Point[])
      .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value));

  return {
    spans: () => spanExporter.getFinishedSpans(),
    spansNamed: (name) => spanExporter.getFinishedSpans().filter((span) => span.name === name),
    metrics: read,
    async sum(name, attributes = {}) {
      return (await points(name, attributes)).reduce((total, point) => total + (point.value as number), 0);
    },
    async count(name, attributes = {}) {
      return (await points(name, attributes)).reduce(
        (total, point) => total + (point.value as { count: number }).count,
        0,
      );
    },
    async histogram(name, attributes = {}) {
      const found = (await read()).find((metric) => metric.descriptor.name === name);
      if (found && found.dataPointType !== DataPointType.HISTOGRAM) throw new Error(`${name} is not a histogram`);
      return ((found?.dataPoints ?? []) as HistogramMetricData["dataPoints"]).filter((point) =>
        Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
      );
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}
