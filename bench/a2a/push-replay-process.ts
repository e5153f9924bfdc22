/**
 * The push bench's floor (push.ts, "(c)"): replays notifications the receiver kept, byte for byte with
 * their signatures, to the receiver at a fixed rate, from a process of its own. What it leaves out is all
 * a push implementation adds on the server's side beyond the POST itself (signing, the delivery rows, the
 * claims): it is the least any push design costs this machine (the POSTs and the receiver's work).
 *
 *   node push-replay-process.ts <receiver url> <requests.json> <per second> <ms> [<warm-up ms>]
 *
 * Prints one JSON line at the end: { sent, failed, answerMs: [p50, p99] }, answerMs being each POST's time
 * from sent to the receiver's status, for POSTs sent after the warm-up (the first ones open connections):
 * the last hop's lag on this machine at this load with none of the server's push work in it (a floor of
 * durable → answered, though sent evenly where deliveries come in bursts).
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import { quantile } from "../metrics/stats.ts";

// bench/ is not a workspace package: undici resolves from the client package, which depends on it.
const undici = createRequire(new URL("../../packages/a2a-client/package.json", import.meta.url))(
  "undici",
) as typeof import("undici");

const [url = "", file = "", perSecondArg = "0", msArg = "0", warmupArg = "0"] = process.argv.slice(2);
const requests = JSON.parse(await readFile(file, "utf8")) as Array<{ body: string; headers: Record<string, string> }>;
if (requests.length === 0) throw new Error("no requests to replay");
const target = new URL(url);
// As many connections as the dispatcher keeps deliveries in flight (PUSH_DISPATCH.maxInFlight).
const pool = new undici.Pool(target.origin, { connections: 256, pipelining: 1 });
const perSecond = Number(perSecondArg);
const begin = performance.now();
const end = begin + Number(msArg);
const counted = begin + Number(warmupArg);
let sent = 0;
let failed = 0;
const answerMs: number[] = [];
const inFlight = new Set<Promise<void>>();
for (let i = 0; ; i++) {
  const due = begin + (i * 1000) / perSecond;
  if (due >= end) break;
  const wait = due - performance.now();
  if (wait >= 1) await sleep(wait);
  const { body, headers } = requests[i % requests.length] as (typeof requests)[number];
  const sentAt = performance.now();
  const request = pool
    .request({ path: target.pathname, method: "POST", headers, body })
    .then(async (res) => {
      if (sentAt >= counted) answerMs.push(performance.now() - sentAt);
      await res.body.dump();
      if (res.statusCode === 200) sent++;
      else failed++;
    })
    .catch(() => {
      failed++;
    })
    .finally(() => inFlight.delete(request));
  inFlight.add(request);
}
await Promise.all(inFlight);
await pool.close();
const answers = [quantile(answerMs, 0.5), quantile(answerMs, 0.99)];
process.stdout.write(`${JSON.stringify({ sent, failed, answerMs: answers })}\n`);
