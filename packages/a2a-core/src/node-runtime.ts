/**
 * Node process entry (`@a2a-partner/a2a-core/node-runtime`): what a long-running Node server sets up
 * before it serves, apart from A2A itself. V8's heap defaults (`applyHeapDefaults`, called first thing)
 * and the OpenTelemetry SDK's start-up (`startTelemetry`: a Prometheus scrape endpoint, OTLP export from
 * the standard `OTEL_*` variables, the SDK's diagnostics in your log). The SDK packages are optional peer
 * dependencies, loaded only when telemetry is switched on.
 */

export {
  appliedHeapSettings,
  applyHeapDefaults,
  decideHeapSettings,
  GROWING_FLAG,
  HEAP_DEFAULTS,
  type HeapDecision,
  type HeapSettingsSource,
  heapSettingsForLog,
  SEMI_SPACE_FLAG,
} from "./node-runtime/heap-defaults.js";
export type { RuntimeLogger } from "./node-runtime/runtime-logger.js";
export { sdkDiagnosticsLevel, sdkDiagnosticsLogger } from "./node-runtime/sdk-diagnostics.js";
export {
  otlpRequested,
  startTelemetry,
  type Telemetry,
  type TelemetryOptions,
} from "./node-runtime/start-telemetry.js";
