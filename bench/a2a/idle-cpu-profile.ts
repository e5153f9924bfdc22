/**
 * Where an idle server's CPU goes: N idle streams (each with a task of its own, or SubscribeToTask
 * streams), then a V8 CPU profile of the server over a quiet window, taken over the inspector, written
 * to a file and summarised by profile-summary.ts. Also prints the window's CPU share (from /proc), the
 * figure the bench's idle-CPU target judges.
 *
 *   node bench/a2a/idle-cpu-profile.ts ours task 5000 30 /tmp/idle.cpuprofile
 *   A2A_BENCH_BASE=/path/to/worktree node bench/a2a/idle-cpu-profile.ts ours-base task 5000 30 /tmp/base.cpuprofile
 *
 * Investigation tool, not part of the bench run.
 */
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { createPool, type Endpoint, type OpenedStream, openIdleStreams } from "./load.ts";
import { cpuSeconds } from "./proc.ts";
import { createTarget } from "./targets.ts";

const [which = "ours", kind = "task", countText = "5000", secondsText = "30", out = "/tmp/idle.cpuprofile"] =
  process.argv.slice(2);
const count = Number(countText);
const seconds = Number(secondsText);

/** A DevTools session with the server (the profiler runs only while its session is open). */
async function devtools(url: string): Promise<{ call(method: string): Promise<unknown>; close(): void }> {
  const ws = new WebSocket(url);
  await new Promise((resolve) => ws.addEventListener("open", resolve, { once: true }));
  let nextId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  return {
    call(method) {
      const id = ++nextId;
      ws.send(JSON.stringify({ id, method }));
      return new Promise((resolve) => pending.set(id, resolve));
    },
    close: () => ws.close(),
  };
}

async function main(): Promise<void> {
  // ours-base: the server of the checkout A2A_BENCH_BASE names (a plain worktree), to compare with ours.
  if (which !== "ours" && which !== "ours-base" && which !== "sdk")
    throw new Error("usage: idle-cpu-profile.ts ours|ours-base|sdk task|subscribe N s out");
  const target = await createTarget(which);
  const server = await target.start("streams", { inspect: true });
  const endpoint: Endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };
  const pool = createPool(server.origin, count + 300);
  const open: OpenedStream[] = [];
  try {
    let seq = 0;
    const newTask = () => target.dialect.start(`idle-${seq++}-${crypto.randomUUID()}`);
    const warm = await openIdleStreams(pool, endpoint, 200, newTask, 64);
    const ids = warm.streams.map((s) => s.taskId as string);
    for (const stream of warm.streams) stream.close();
    const body = kind === "subscribe" ? () => target.dialect.subscribe(ids[seq++ % ids.length] as string) : newTask;
    open.push(...(await openIdleStreams(pool, endpoint, count, body, 64)).streams);
    await sleep(5_000); // the opening's garbage collected, its writes drained
    const inspector = server.inspector as string;
    // The profiler's own 1 ms sampling costs CPU too: the share is read over a window without it first.
    const cpu0 = await cpuSeconds(server.pid);
    await sleep(seconds * 1000);
    const share = ((await cpuSeconds(server.pid)) - cpu0) / seconds;
    const session = await devtools(inspector);
    await session.call("Profiler.enable");
    await session.call("Profiler.start");
    await sleep(seconds * 1000);
    const stopped = (await session.call("Profiler.stop")) as { profile: unknown };
    session.close();
    writeFileSync(out, JSON.stringify(stopped.profile));
    process.stdout.write(
      `${which} ${kind}: ${open.filter((s) => !s.closed).length} streams open; idle CPU ${(share * 100).toFixed(2)} % ` +
        `of a core over ${seconds} s (without the profiler); profile of the next ${seconds} s in ${out}\n`,
    );
  } finally {
    for (const stream of open) stream.close();
    await server.kill();
    await pool.destroy().catch(() => undefined);
    await target.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `idle-cpu-profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
