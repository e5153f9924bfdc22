// The metrics data generator: what the reference server's `pnpm cli generate` runs (and its control
// socket, when a running server owns the embedded data directory).

export { generateMetricsData } from "./generate-metrics-data.ts";
export {
  type GenerateHooks,
  GenerateNotFoundError,
  GenerateOptions,
  type GenerateProgress,
  type GenerateSummary,
  GenerateUsageError,
  parseGenerateArgs,
  type WorkflowShare,
} from "./generate-options.ts";
export { ALERT_TYPES, ALERTS_PER_EVENT, buildTimeline, EVENT_TYPES, EXECUTIONS_PER_EVENT, timeAt } from "./profile.ts";
