/**
 * The first event of a task that arrives after the server sat idle, against one that arrives after a
 * short pause: what a partner who sends a task now and then sees, which the bench's back-to-back starts
 * never show. Each sample is a fresh start after `--idle` seconds (long) or `--pause` seconds (short),
 * alternating. The client keeps its keep-alive connection as long as the server does (undici's own idle
 * timeout is raised past the longest wait); a server closes an idle one after 5 s (ours, and node's
 * default the SDK keeps), so a wait past that includes a new TCP connection, for every server alike.
 *
 *   node bench/a2a/first-event-after-idle.ts --target ours --samples 6 --idle 12 --pause 1
 *
 * Flags: --target (a single-instance target of run.ts), --samples (of each kind), --idle, --pause
 * (seconds). Investigation tool, not part of the bench run.
 */
import { createRequire } from "node:module";
import { benchFlags } from "../flags.ts";
import { median } from "../metrics/stats.ts";
import { openStream, startBody } from "./load.ts";
import { createTarget, type TargetId } from "./targets.ts";

const require = createRequire(new URL("../../packages/a2a-client/package.json", import.meta.url));
const { Pool } = require("undici") as typeof import("undici");

const args = benchFlags({ target: "ours", samples: "6", idle: "12", pause: "1" });
const samples = Number(args.samples);
const idleMs = Number(args.idle) * 1000;
const pauseMs = Number(args.pause) * 1000;

const target = await createTarget(args.target as TargetId);
if (target.instances !== 1) throw new Error(`${target.id} runs ${target.instances} instances; pick a single one`);
const server = await target.start("load");
const pool = new Pool(server.origin, { connections: 2, keepAliveTimeout: 4 * idleMs, keepAliveMaxTimeout: 4 * idleMs });
const endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };

async function firstEventMs(): Promise<number> {
  const stream = await openStream(pool, endpoint, startBody(endpoint, `idle-${crypto.randomUUID()}`));
  await stream.ended;
  return stream.firstAt - stream.sentAt;
}

try {
  for (let i = 0; i < 20; i++) await firstEventMs(); // warm: JIT, connections, prepared statements
  const afterIdle: number[] = [];
  const afterPause: number[] = [];
  for (let i = 0; i < samples; i++) {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    afterIdle.push(await firstEventMs());
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    afterPause.push(await firstEventMs());
    process.stdout.write(
      `  sample ${i + 1}: after ${args.idle} s idle ${afterIdle.at(-1)?.toFixed(2)} ms, after ${args.pause} s ${afterPause.at(-1)?.toFixed(2)} ms\n`,
    );
  }
  process.stdout.write(
    `${target.id}: first event after ${args.idle} s idle, median ${median(afterIdle).toFixed(2)} ms; after ${args.pause} s, ` +
      `${median(afterPause).toFixed(2)} ms (${samples} each)\n`,
  );
} finally {
  await server.kill();
  await pool.destroy().catch(() => undefined);
  await target.dispose();
}
