import { workflowMix } from "@a2a-partner/example-server/fleet/workflow-mix";
import {
  type GenerateHooks,
  type GenerateOptions,
  type GenerateSummary,
  generateMetricsData,
} from "@a2a-partner/metrics-generator";
import type { Database } from "./setup.ts";

/** The metrics generator as the reference server runs it: with the fleet's workflows. */
export function generateMetrics(
  db: Database,
  options: GenerateOptions,
  hooks: Omit<GenerateHooks, "workflows"> = {},
): Promise<GenerateSummary> {
  return generateMetricsData(db, options, { ...hooks, workflows: workflowMix() });
}
