import {
  type GenerateHooks,
  type GenerateOptions,
  type GenerateSummary,
  generateMetricsData,
} from "../../examples/metrics-generator/src/index.ts";
import { workflowMix } from "../../examples/server/src/fleet/workflow-mix.ts";
import type { Database } from "./setup.ts";

/** The metrics generator as the reference server runs it: with the fleet's workflows. */
export function generateMetrics(
  db: Database,
  options: GenerateOptions,
  hooks: Omit<GenerateHooks, "workflows"> = {},
): Promise<GenerateSummary> {
  return generateMetricsData(db, options, { ...hooks, workflows: workflowMix() });
}
