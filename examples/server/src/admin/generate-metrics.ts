import { NotFoundError, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import {
  type GenerateHooks,
  GenerateNotFoundError,
  type GenerateSummary,
  GenerateUsageError,
  generateMetricsData,
  parseGenerateArgs,
} from "@a2a-partner/metrics-generator";
import type { Database } from "@a2a-partner/postgres-store";
import { workflowMix } from "../fleet/workflow-mix.ts";

/**
 * `generate`'s arguments, read (a bad one is an UsageError). Apart from the run, so the CLI refuses
 * them before it opens the store or reaches a running server.
 */
export function generateOptions(args: string[]): ReturnType<typeof parseGenerateArgs> {
  return asUsage(() => parseGenerateArgs(args));
}

/** The `generate` operation (the CLI's, or the control socket's): metrics-generator with the fleet's workflows. */
export async function generateMetrics(
  db: Database,
  args: string[],
  hooks: Omit<GenerateHooks, "workflows"> = {},
): Promise<GenerateSummary> {
  const options = generateOptions(args);
  return asUsage(() => generateMetricsData(db, options, { ...hooks, workflows: workflowMix() }));
}

function asUsage<T>(work: () => T): T {
  const translate = (error: unknown): never => {
    if (error instanceof GenerateNotFoundError) throw new NotFoundError(error.message);
    throw error instanceof GenerateUsageError ? new UsageError(error.message) : error;
  };
  try {
    const result = work();
    return (result instanceof Promise ? result.catch(translate) : result) as T;
  } catch (error) {
    return translate(error);
  }
}
