/**
 * A `--import` hook for an investigation (not part of a bench run). In the server it is loaded into (each
 * thread on its own), it times every statement its `pg` clients send, from the query call to the answer,
 * grouped as the task start, group commits that carry task events, group commits of rows only, and the
 * rest by name or first words; on exit it writes their counts, medians and p90s (ms) to
 * `$A2A_STATEMENT_TIMING_DIR/statements-<pid>-<thread>.json`. After `$A2A_STATEMENT_PLANS_AFTER_MS`
 * (default 9,000) it also asks each connection it saw how its prepared statements were planned
 * (`pg_prepared_statements`: generic and custom plans) and writes `plans-<pid>-<thread>.json`.
 *
 *   A2A_STATEMENT_TIMING_DIR=/tmp node bench/a2a/frame-timeline.ts --targets ours --passes 1 \
 *     --node-options=--import=$PWD/bench/a2a/statement-timing-hook.ts
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { quantile } from "../metrics/stats.ts";

const require = createRequire(new URL("../../packages/postgres-store/package.json", import.meta.url));
const pg = require("pg") as typeof import("pg");
const outDir = process.env.A2A_STATEMENT_TIMING_DIR ?? "/tmp";
const samples = new Map<string, number[]>();
const clients = new Set<import("pg").Client>();

function groupOf(config: unknown): string {
  const { name, text } = (typeof config === "string" ? { text: config } : config) as { name?: string; text?: string };
  if (name?.startsWith("a2a_start_task")) return "start";
  const batch = text?.includes("jsonb_to_recordset") || text?.includes("jsonb_populate_recordset");
  if (batch && !name) return "group commit, unnamed";
  if (batch && text?.includes("insert into task_events")) return "group commit with events";
  if (batch) return "group commit, rows only";
  return name ?? (text ?? "?").replace(/\s+/g, " ").slice(0, 40);
}

type Query = (this: import("pg").Client, ...args: unknown[]) => unknown;
const query = pg.Client.prototype.query as unknown as Query;
pg.Client.prototype.query = function timedQuery(this: import("pg").Client, ...args: unknown[]) {
  clients.add(this);
  const group = groupOf(args[0]);
  const startedAt = performance.now();
  const done = () => {
    const list = samples.get(group) ?? [];
    if (list.length === 0) samples.set(group, list);
    list.push(performance.now() - startedAt);
  };
  const callback = args.findIndex((arg) => typeof arg === "function");
  if (callback >= 0) {
    const original = args[callback] as (...results: unknown[]) => void;
    args[callback] = (...results: unknown[]) => {
      done();
      original(...results);
    };
    return query.apply(this, args);
  }
  const result = query.apply(this, args);
  if (result instanceof Promise) result.then(done, done);
  return result;
} as unknown as typeof pg.Client.prototype.query;

process.on("exit", () => {
  const report = Object.fromEntries(
    [...samples].map(([group, list]) => [
      group,
      { count: list.length, p50: quantile(list, 0.5), p90: quantile(list, 0.9) },
    ]),
  );
  writeFileSync(join(outDir, `statements-${process.pid}-${threadId}.json`), JSON.stringify(report, null, 1));
});

setTimeout(
  async () => {
    const plans: unknown[] = [];
    for (const client of clients) {
      try {
        const sql = "select name, generic_plans, custom_plans from pg_prepared_statements";
        plans.push(((await query.call(client, sql)) as { rows: unknown[] }).rows);
      } catch (error) {
        plans.push(String(error));
      }
    }
    writeFileSync(join(outDir, `plans-${process.pid}-${threadId}.json`), JSON.stringify(plans, null, 1));
  },
  Number(process.env.A2A_STATEMENT_PLANS_AFTER_MS ?? 9_000),
).unref();
