/**
 * The floor under a durable first event: what one commit of a task start's size costs on this PostgreSQL
 * server, measured on the day. A start stores the task row and its first event in one transaction, so
 * a server that sends its first frame only once that is durable cannot answer sooner than the SDK's
 * in-memory answer plus this. `pnpm bench:a2a` prints it beside the first event.
 *
 * Each sample is one autocommitted insert of two JSON documents (the task and its `task` event, each
 * `bytes` long) into a logged table of its own, from one connection: a round trip and an fsync of the
 * WAL, as the start's own commit has. The table lives in a database of its own, dropped at the end.
 */
import { createRequire } from "node:module";
import { median } from "../metrics/stats.ts";

const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const pg = require("pg") as typeof import("pg");

export interface CommitFloor {
  /** The median commit, ms. */
  p50: number;
  samples: number;
  bytes: number;
}

export async function commitFloor(
  serverUrl: string,
  { samples = 300, warmups = 50, bytes = 560 }: { samples?: number; warmups?: number; bytes?: number } = {},
): Promise<CommitFloor> {
  const database = `a2a_bench_floor_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${database}`);
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query("create table start_sized (id bigserial primary key, task jsonb, event jsonb)");
      const document = JSON.stringify({ kind: "task", text: "x".repeat(Math.max(0, bytes - 26)) });
      const times: number[] = [];
      for (let i = 0; i < warmups + samples; i++) {
        const begun = performance.now();
        await client.query({
          name: "start_sized",
          text: "insert into start_sized (task, event) values ($1, $2)",
          values: [document, document],
        });
        if (i >= warmups) times.push(performance.now() - begun);
      }
      return { p50: median(times), samples, bytes };
    } finally {
      await client.end();
    }
  } finally {
    await admin.query(`drop database if exists ${database}`).catch(() => undefined);
    await admin.end();
  }
}
