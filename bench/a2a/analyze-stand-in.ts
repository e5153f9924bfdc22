/**
 * autovacuum's ANALYZE, for a bench on a PostgreSQL that runs without it (this machine's does: its own
 * `conf.d/90-ci.conf`). The store's hot statements are named, and a named statement keeps its generic plan
 * until ANALYZE changes a table's statistics. With no ANALYZE, the plans made while the bench's tables were
 * empty stay as the tables grow to hundreds of thousands of rows, and PostgreSQL's CPU per task grows with
 * them (bench/NOTES.md, seventeenth session: tasks/s +19.6 % with fresh plans, in every round). A stock
 * PostgreSQL analyzes a table once a tenth of it has changed; this analyzes the bench's databases every
 * `everyMs`, which on tables growing by thousands of rows a second comes to about the same.
 */
import { createRequire } from "node:module";

const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const pg = require("pg") as typeof import("pg");

export interface AnalyzeStandIn {
  /** A line for the report, or undefined when the server runs autovacuum itself (nothing is done). */
  note: string | undefined;
  stop(): Promise<void>;
}

/** Starts analyzing every database named `databasePrefix…` on `serverUrl` when autovacuum is off there. */
export async function startAnalyzeStandIn(
  serverUrl: string,
  { everyMs = 10_000, databasePrefix = "a2a_" }: { everyMs?: number; databasePrefix?: string } = {},
): Promise<AnalyzeStandIn> {
  const admin = new pg.Client({ connectionString: serverUrl });
  const autovacuum = await admin
    .connect()
    .then(() => admin.query<{ autovacuum: string }>("show autovacuum"))
    .then(({ rows }) => rows[0]?.autovacuum)
    // No PostgreSQL to reach (a run of embedded and in-memory targets only): nothing to stand in for.
    .catch(() => undefined);
  if (autovacuum !== "off") {
    await admin.end().catch(() => undefined);
    return { note: undefined, stop: async () => undefined };
  }
  let stopped = false;
  const analyzeAll = async (): Promise<void> => {
    const { rows: databases } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like $1",
      [`${databasePrefix}%`],
    );
    for (const { datname } of databases) {
      if (stopped) return;
      const url = new URL(serverUrl);
      url.pathname = `/${datname}`;
      const client = new pg.Client({ connectionString: url.toString() });
      try {
        await client.connect();
        await client.query("analyze");
      } catch {
        // A database dropped since it was listed (a target disposed of): nothing to analyze.
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  };
  let pass: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    pass = pass.then(analyzeAll).catch(() => undefined);
  }, everyMs);
  return {
    note:
      `PostgreSQL runs with autovacuum off here: the bench runs ANALYZE on its databases every ${everyMs / 1000} s ` +
      "in its place, so that named statements are planned again as the tables grow (bench/a2a/analyze-stand-in.ts).",
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pass;
      await admin.end().catch(() => undefined);
    },
  };
}
