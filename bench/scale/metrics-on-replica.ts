/**
 * The metrics endpoint's load on the primary, with and without DATABASE_READ_URL: one server on a real
 * streaming replica and one without, each reaching the primary through a statement tap; dashboards'
 * requests (`--concurrency` at a time, for `--seconds`) against each in turn. Reports requests/s and the
 * statements of the metrics path (the token, the access check, the aggregation) the primary executed.
 *
 *   node bench/scale/metrics-on-replica.ts --seconds 10 --concurrency 8
 *
 * Not in CI: a bench. See bench/NOTES.md ("The metrics endpoint off the primary").
 */

import {
  createPostgresStore,
  type ServerProcess,
  seedWithCli,
  startServerProcess,
} from "../../examples/server/test/support/server-process.ts";
import { startStatementTap } from "../../examples/server/test/support/statement-tap.ts";
import { buildEventMetricsQueries, parseMetricsWindow } from "../../packages/metrics-core/dist/index.js";
import { startReplica } from "../../test/support/replica.ts";
import { benchFlags } from "../flags.ts";

const flags = benchFlags({ seconds: "10", concurrency: "8" });
const WINDOW = "start_timestamp=2026-03-01&end_timestamp=2026-03-31";
const store = await createPostgresStore();
const seeded = await seedWithCli(store.env);
const database = new URL(store.url).pathname.slice(1);
const replica = await startReplica(store.url);
const primary = new URL(store.url);
const taps = {
  replica: await startStatementTap({ host: "127.0.0.1", port: Number(primary.port || 5432) }),
  primary: await startStatementTap({ host: "127.0.0.1", port: Number(primary.port || 5432) }),
};
const aggregation = buildEventMetricsQueries(
  seeded.workspace.uuid,
  parseMetricsWindow(new URLSearchParams(WINDOW)),
).text;
const metricsPath = (sql: string) => /from api_tokens|from workspaces w/.test(sql) || sql === aggregation;
const servers: ServerProcess[] = [];
try {
  const common = { LOG_LEVEL: "info", METRICS_RATE_LIMIT_PER_SECOND: "0", PUSH_DISPATCH_THREAD: "off" };
  const withReplica = await startServerProcess({
    ...common,
    DATABASE_URL: taps.replica.proxied(store.url),
    DATABASE_READ_URL: replica.url(database),
  });
  servers.push(withReplica);
  const withoutReplica = await startServerProcess({ ...common, DATABASE_URL: taps.primary.proxied(store.url) });
  servers.push(withoutReplica);
  await replica.catchUp();
  for (const [name, server] of [
    ["DATABASE_READ_URL set", withReplica],
    ["primary only", withoutReplica],
  ] as const) {
    const tap = name === "primary only" ? taps.primary : taps.replica;
    const url = `${server.url}/api/v1/metrics/events/${seeded.workspace.slug}?${WINDOW}`;
    const request = async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${seeded.userToken}` } });
      if (res.status !== 200) throw new Error(`metrics answered ${res.status}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 20; i++) await request(); // warm-up (and the fence's baseline)
    tap.clear();
    let requests = 0;
    const end = performance.now() + Number(flags.seconds) * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Number(flags.concurrency) }, async () => {
        while (performance.now() < end) {
          await request();
          requests++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const onPrimary = tap.executed.filter(metricsPath).length;
    console.log(
      JSON.stringify({
        server: name,
        requests,
        requestsPerSecond: Math.round(requests / seconds),
        metricsPathStatementsOnPrimary: onPrimary,
        perRequest: Number((onPrimary / requests).toFixed(2)),
        otherStatementsOnPrimary: tap.executed.length - onPrimary,
      }),
    );
  }
} finally {
  for (const server of servers) await server.kill("SIGTERM");
  await taps.replica.close();
  await taps.primary.close();
  await replica.stop();
  await store.drop();
}
