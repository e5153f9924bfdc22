/**
 * What keeping the rollups exact costs at write time: the same generated records loaded into two fresh
 * databases, identical but for the rollup triggers (metrics-core's migrations) — enabled in one, disabled
 * in the other (`alter table … disable trigger user` on the four raw tables). Insert throughput is
 * compared at each statement size asked for: the generator's bulk batches, and smaller statements
 * closer to a live writer's.
 *
 * Each round loads the same records (same seed) into both databases, so both tables grow alike; rounds
 * alternate which database goes first (ABBA …), and every load starts after a CHECKPOINT, so neither side
 * keeps paying for the other's dirty pages or the tables' growth.
 *
 * The triggers only append deltas (metrics-core's migrations/0001_metrics.sql); folding them into the
 * rollups is a separate step that a server runs in the background. So the loads are timed without it
 * (what writers pay), and the fold that follows each load with triggers is timed on its own (what the
 * database pays on top).
 */

import { migrateReferenceSchema } from "@a2a-partner/example-server/migrations";
import { ALERTS_PER_EVENT, EXECUTIONS_PER_EVENT } from "@a2a-partner/metrics-generator";
import { generateMetrics } from "./generate.ts";
import {
  createWorkspace,
  type Database,
  databaseUrl,
  dropDatabase,
  metrics,
  recreateDatabase,
  store,
} from "./setup.ts";

const { compactMetricsRollups } = metrics;

/** The raw tables metrics-core puts the rollup delta triggers on: the only user triggers on them. */
const RAW_TABLES = ["telemetry_events", "workflow_executions", "workflow_node_executions", "alerts"] as const;

export interface IngestLoad {
  rows: number;
  ms: number;
  /** With triggers: folding the load's deltas into the rollups afterwards (not part of `ms`). */
  foldMs?: number;
}

export interface IngestSide {
  rows: number;
  ms: number;
  rowsPerSecond: number;
}

export interface IngestRun {
  /** Telemetry events (and alerts) per INSERT statement; executions go in statements of a fifth of it. */
  batchSize: number;
  statementsPerLoad: number;
  withTriggers: IngestSide;
  withoutTriggers: IngestSide;
  /** Throughput lost to the triggers: (1 − with ÷ without) × 100. */
  overheadPercent: number;
  /** Folding the deltas after each load, total over the rounds. */
  foldMs: number;
  /** The same loss if the fold ran inside the load: (1 − rows ÷ (ms + foldMs) ÷ without) × 100. */
  overheadWithFoldPercent: number;
  /** The same, per round (each round's pair of loads), to show the spread. */
  roundOverheadPercent: number[];
  rounds: { withTriggers: IngestLoad; withoutTriggers: IngestLoad }[];
}

export interface IngestOptions {
  /** Server URL whose path is replaced by each database's name. */
  serverUrl: string;
  /** Names of the two databases (created here, dropped unless `keep`). */
  databases: { withTriggers: string; withoutTriggers: string };
  events: number;
  days: number;
  end: Date;
  rounds: number;
  batchSizes: number[];
  keep: boolean;
  log(line: string): void;
}

const SLUG = "ingest";

export async function measureIngest(options: IngestOptions): Promise<IngestRun[]> {
  const { log } = options;
  const names = [options.databases.withTriggers, options.databases.withoutTriggers] as const;
  const opened: Database[] = [];
  try {
    for (const name of names) {
      await recreateDatabase(options.serverUrl, name);
      const db = await store.openDatabase({ url: databaseUrl(options.serverUrl, name), pool: { max: 2 } });
      opened.push(db);
      await migrateReferenceSchema(db);
      await createWorkspace(db, SLUG);
    }
    const [withTriggers, withoutTriggers] = opened as [Database, Database];
    const disabled = await disableRollupTriggers(withoutTriggers);
    log(`ingest: rollup triggers disabled in ${names[1]}: ${disabled.join(", ")}`);
    let canCheckpoint = true;
    const load = async (db: Database, batchSize: number): Promise<IngestLoad> => {
      if (canCheckpoint) {
        // Superuser (or pg_checkpoint) only; without it the ABBA order alone has to even things out.
        await db.query("checkpoint").catch((error: unknown) => {
          canCheckpoint = false;
          log(`ingest: no CHECKPOINT between loads (${error instanceof Error ? error.message : String(error)})`);
        });
      }
      const started = performance.now();
      const summary = await generateMetrics(
        db,
        { workspace: SLUG, events: options.events, days: options.days, end: options.end, seed: 7 },
        { batchSize, foldRollups: false },
      );
      const ms = performance.now() - started;
      if (db !== withTriggers) return { rows: summary.rows, ms };
      const folding = performance.now();
      await compactMetricsRollups(db);
      return { rows: summary.rows, ms, foldMs: performance.now() - folding };
    };

    const runs: IngestRun[] = [];
    for (const batchSize of options.batchSizes) {
      const rounds: IngestRun["rounds"] = [];
      for (let round = 0; round < options.rounds; round++) {
        // ABBA: round 0 with-first, 1 without-first, and so on.
        const withFirst = round % 2 === 0;
        const first = await load(withFirst ? withTriggers : withoutTriggers, batchSize);
        const second = await load(withFirst ? withoutTriggers : withTriggers, batchSize);
        const pair = withFirst
          ? { withTriggers: first, withoutTriggers: second }
          : { withTriggers: second, withoutTriggers: first };
        rounds.push(pair);
        log(
          `  ingest ${batchSize.toLocaleString("en")} rows/statement, round ${round + 1}: ` +
            `${rate(pair.withTriggers)} rows/s with triggers, ${rate(pair.withoutTriggers)} without`,
        );
      }
      const side = (pick: (r: IngestRun["rounds"][number]) => IngestLoad): IngestSide => {
        const rows = rounds.reduce((sum, r) => sum + pick(r).rows, 0);
        const ms = rounds.reduce((sum, r) => sum + pick(r).ms, 0);
        return { rows, ms, rowsPerSecond: rows / (ms / 1000) };
      };
      const on = side((r) => r.withTriggers);
      const off = side((r) => r.withoutTriggers);
      const foldMs = rounds.reduce((sum, r) => sum + (r.withTriggers.foldMs ?? 0), 0);
      runs.push({
        batchSize,
        statementsPerLoad: statements(options.events, batchSize),
        withTriggers: on,
        withoutTriggers: off,
        overheadPercent: overhead(on.rowsPerSecond, off.rowsPerSecond),
        foldMs,
        overheadWithFoldPercent: overhead(on.rows / ((on.ms + foldMs) / 1000), off.rowsPerSecond),
        roundOverheadPercent: rounds.map((r) =>
          overhead(r.withTriggers.rows / r.withTriggers.ms, r.withoutTriggers.rows / r.withoutTriggers.ms),
        ),
        rounds,
      });
    }
    return runs;
  } finally {
    await Promise.all(opened.map((db) => db.close().catch(() => undefined)));
    if (!options.keep) for (const name of names) await dropDatabase(options.serverUrl, name);
  }
}

function overhead(withRate: number, withoutRate: number): number {
  return (1 - withRate / withoutRate) * 100;
}

function rate(load: IngestLoad): string {
  return Math.round(load.rows / (load.ms / 1000)).toLocaleString("en");
}

/** INSERT statements of one load: telemetry, executions (a fifth of the batch each) and alerts. */
function statements(events: number, batchSize: number): number {
  const per = (rows: number, size: number) => Math.ceil(rows / Math.max(1, size));
  return (
    per(events, batchSize) +
    per(Math.round(events * EXECUTIONS_PER_EVENT), Math.floor(batchSize / 5)) +
    per(Math.round(events * ALERTS_PER_EVENT), batchSize)
  );
}

/**
 * Disables every user trigger on the raw tables (the rollup triggers; the cache triggers of other tables
 * stay) and returns their names, after checking there were some: a rename in the migrations must not
 * turn this into a comparison of two identical databases.
 */
async function disableRollupTriggers(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `select c.relname || '.' || t.tgname as name
     from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where not t.tgisinternal and n.nspname = current_schema() and c.relname = any($1::text[])
     order by 1`,
    [RAW_TABLES],
  );
  if (rows.length === 0) throw new Error(`no triggers on ${RAW_TABLES.join(", ")}: nothing to compare`);
  for (const table of RAW_TABLES) await db.query(`alter table ${table} disable trigger user`);
  return rows.map((r) => r.name);
}
