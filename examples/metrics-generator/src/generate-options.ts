import { parseArgs } from "node:util";
import { isMetricsWindowError, parseMetricsTimestamp } from "@a2a-partner/metrics-core";
import { z } from "zod";

/** A bad option or argument, or a workspace that does not exist: the caller's to fix (the CLI exits 2). */
export class GenerateUsageError extends Error {}

/** A well-formed run naming a workspace that does not exist (the CLI exits 1, not 2). */
export class GenerateNotFoundError extends GenerateUsageError {}

export const GenerateOptions = z.object({
  /** Slug of an existing workspace. */
  workspace: z.string().min(1),
  /** Telemetry events to create; executions, node executions and alerts follow in proportion. */
  events: z.number().int().min(0).max(1_000_000_000),
  /** The records span the `days` × 24 h before `end`. */
  days: z.number().int().min(1).max(3660),
  /** Default: now. */
  end: z.date().optional(),
  /** The same seed (and the same other options) gives the same records, up to their random ids. */
  seed: z.number().int().min(0).max(2_147_483_647).default(1),
});
export type GenerateOptions = z.input<typeof GenerateOptions>;

export interface GenerateSummary {
  workspace: { uuid: string; slug: string };
  /** Every record lies in [start, end). */
  window: { start: string; end: string };
  seed: number;
  inserted: { telemetry_events: number; workflow_executions: number; workflow_node_executions: number; alerts: number };
  rows: number;
  ms: number;
  rows_per_second: number;
}

export interface GenerateProgress {
  table: "telemetry_events" | "workflow_executions" | "alerts";
  done: number;
  total: number;
}

export interface GenerateHooks {
  /** The workflows executions are drawn from (the reference server's: its fleet's plans). */
  workflows: readonly WorkflowShare[];
  onProgress?: (progress: GenerateProgress) => void;
  /** Rows per statement (executions: per 5). Default 250 000. */
  batchSize?: number;
  /**
   * Fold the rollup deltas the batches appended into the rollups once they are all in (default true), so
   * a bulk load leaves no backlog for queries to scan. Once, not per batch: batches span the same hours,
   * so one fold updates each rollup row once. Off to measure the inserts alone.
   */
  foldRollups?: boolean;
}

/** A workflow the generated executions run, its share of them, and its nodes in order. */
export interface WorkflowShare {
  name: string;
  share: number;
  nodes: readonly string[];
}

const USAGE = "generate --workspace <slug> --events N --days D [--seed S] [--end <ISO-8601>]";

/** Reads `generate`'s command-line arguments; a bad one is a GenerateUsageError (the CLI exits 2). */
export function parseGenerateArgs(args: string[]): z.output<typeof GenerateOptions> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        workspace: { type: "string" },
        events: { type: "string" },
        days: { type: "string" },
        seed: { type: "string" },
        end: { type: "string" },
      },
    }));
  } catch (error) {
    throw new GenerateUsageError(`${error instanceof Error ? error.message : String(error)}\nusage: ${USAGE}`);
  }
  const integer = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    // Digits, optionally grouped with "_" (10_000_000), or a power-of-ten shorthand such as 1e6.
    if (!/^(\d+(_\d+)*|\d+e\d+)$/.test(value)) throw new GenerateUsageError(`--${name} must be a whole number`);
    return Number(value.replaceAll("_", ""));
  };
  if (!values.workspace || values.events === undefined || values.days === undefined) {
    throw new GenerateUsageError(`generate needs --workspace, --events and --days\nusage: ${USAGE}`);
  }
  let end: Date | undefined;
  if (values.end !== undefined) {
    try {
      end = parseMetricsTimestamp(values.end, "end_timestamp");
    } catch (error) {
      if (!isMetricsWindowError(error)) throw error;
      throw new GenerateUsageError("--end must be an ISO-8601 timestamp or a date YYYY-MM-DD");
    }
  }
  const parsed = GenerateOptions.safeParse({
    workspace: values.workspace,
    events: integer("events", values.events),
    days: integer("days", values.days),
    seed: integer("seed", values.seed),
    end,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GenerateUsageError(`--${String(issue?.path[0] ?? "")}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}
