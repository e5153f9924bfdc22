/**
 * Where an idle stream's memory goes: two V8 heap snapshots of a server process (taken over the
 * inspector, after a full GC), the first with N idle streams open and the second with 2N, and the
 * difference per stream by constructor — what the bench's "heap KiB per stream" is made of.
 *
 *   node bench/a2a/heap-per-stream.ts ours subscribe     # our server, SubscribeToTask streams
 *   node bench/a2a/heap-per-stream.ts sdk task           # the official SDK, a task per stream
 *   node bench/a2a/heap-per-stream.ts floor              # bare node:http holding SSE responses
 *
 * It also prints RSS per stream over the first N (after a forced GC, read before any snapshot: taking
 * one inflates RSS); use N ≥ 2000 for a stable figure. Investigation tool, not part of the bench run.
 *
 * More detail: A2A_HEAP_ROWS (rows printed, default 30), A2A_HEAP_STRINGS=1 (strings split by shape),
 * A2A_HEAP_RETAINERS=<regex of bucket keys> (who holds those nodes, to stderr), A2A_HEAP_DUPLICATES=1
 * (ids, timestamps and texts held in more than one string object, and by whom: heap-duplicate-strings.ts),
 * A2A_HEAP_LOCATIONS=1 (objects and closures by the file and line of their constructor or function, contexts by
 * the closure that holds them; the packages' code is placed in their built `dist/` files), e.g.
 *   A2A_HEAP_STRINGS=1 A2A_HEAP_RETAINERS='^Promise$' node bench/a2a/heap-per-stream.ts ours task 1000
 */
import { fileURLToPath } from "node:url";
import { sdkDialect } from "./dialects.ts";
import { printDuplicateStrings } from "./heap-duplicate-strings.ts";
import { forEachEdge, nodeName, nodeType, type SnapshotGraph, sourcePlaces, textShape } from "./heap-snapshot-graph.ts";
import { collectGarbage } from "./inspector.ts";
import { createPool, type Endpoint, type OpenedStream, openIdleStreams } from "./load.ts";
import { settledRssKiB } from "./proc.ts";
import { createTarget, nodeOptions, type RunningServer, startScriptServer, type Target } from "./targets.ts";

const [which = "ours", kind = "subscribe", perStepText = "1000"] = process.argv.slice(2);
const perStep = Number(perStepText);

interface Bucket {
  count: number;
  bytes: number;
}

/** `A2A_HEAP_STRINGS=1`: strings split by their shape (ids and digits masked, the first 48 characters). */
const SPLIT_TEXT = process.env.A2A_HEAP_STRINGS === "1";

/** A snapshot node's bucket: its constructor, `closure <name>`, or `(<node type>)` (strings by shape if asked). */
function nodeKey(type: string, name: string, splitText: boolean): string {
  if (type === "object") return name;
  if (type === "closure") return `closure ${name}`;
  const text = type === "string" || type === "concatenated string" || type === "sliced string";
  return splitText && text ? `(${type}) ${textShape(name)}` : `(${type})`;
}

/**
 * `A2A_HEAP_RETAINERS=<regex>`: who holds the nodes whose bucket key matches, as (holder's key, edge name)
 * counts over the whole second snapshot, printed to stderr.
 */
const RETAINERS_OF = process.env.A2A_HEAP_RETAINERS ? new RegExp(process.env.A2A_HEAP_RETAINERS) : undefined;

/** `A2A_HEAP_LOCATIONS=1`: objects and closures keyed by where their constructor or function is written. */
const LOCATIONS = process.env.A2A_HEAP_LOCATIONS === "1";

/** `A2A_HEAP_DUPLICATES=1`: strings held more than once in the second snapshot, to stderr. */
const DUPLICATES = process.env.A2A_HEAP_DUPLICATES === "1";

function tallyRetainers(graph: SnapshotGraph, pattern: RegExp, placeOf: Map<number, string>): void {
  const keyOf = (at: number) => {
    const place = placeOf.get(at);
    return `${nodeKey(nodeType(graph, at), nodeName(graph, at), true)}${place ? ` @ ${place}` : ""}`;
  };
  const tally = new Map<string, number>();
  forEachEdge(graph, (from, to, _edgeType, edgeName) => {
    if (!pattern.test(keyOf(to).slice(0, 80))) return;
    const key = `${keyOf(to).slice(0, 60)}  <-  ${keyOf(from).slice(0, 60)} .${edgeName}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  });
  for (const [key, n] of [...tally].sort((a, b) => b[1] - a[1]).slice(0, 40))
    process.stderr.write(`${String(n).padStart(7)}  ${key}\n`);
}

/** `A2A_HEAP_LOCATIONS`: each node's source place where V8 records one, and each context by the first closure holding it. */
function placesOfClosuresAndContexts(graph: SnapshotGraph, scriptUrls: Map<string, string>): Map<number, string> {
  const places = sourcePlaces(graph, scriptUrls);
  forEachEdge(graph, (from, to, _edgeType, edgeName) => {
    if (edgeName !== "context" || places.has(to)) return;
    const holder = places.get(from);
    if (holder && nodeType(graph, from) === "closure") places.set(to, `(of ${holder})`);
  });
  return places;
}

/**
 * Takes a heap snapshot over the inspector and sums self sizes by constructor (or node type); `analyse`
 * (the second snapshot) also prints what A2A_HEAP_RETAINERS and A2A_HEAP_DUPLICATES ask for.
 */
async function heapByConstructor(url: string, analyse = false): Promise<Map<string, Bucket>> {
  const ws = new WebSocket(url);
  await new Promise((resolve) => ws.addEventListener("open", resolve, { once: true }));
  const chunks: string[] = [];
  const scriptUrls = new Map<string, string>();
  const done = new Promise<void>((resolve) => {
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        method?: string;
        params?: { chunk?: string; scriptId?: string; url?: string };
      };
      if (message.method === "HeapProfiler.addHeapSnapshotChunk" && message.params?.chunk)
        chunks.push(message.params.chunk);
      if (message.method === "Debugger.scriptParsed" && message.params?.scriptId)
        scriptUrls.set(message.params.scriptId, message.params.url ?? "");
      if (message.id === 2) resolve();
    });
  });
  if (LOCATIONS) ws.send(JSON.stringify({ id: 0, method: "Debugger.enable" }));
  ws.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" }));
  ws.send(JSON.stringify({ id: 2, method: "HeapProfiler.takeHeapSnapshot", params: { reportProgress: false } }));
  await done;
  ws.close();
  const snapshot = JSON.parse(chunks.join("")) as SnapshotGraph;
  const fields = snapshot.snapshot.meta.node_fields;
  const sizeAt = fields.indexOf("self_size");
  const buckets = new Map<string, Bucket>();
  const placeOf = LOCATIONS ? placesOfClosuresAndContexts(snapshot, scriptUrls) : new Map<number, string>();
  if (analyse && RETAINERS_OF) tallyRetainers(snapshot, RETAINERS_OF, placeOf);
  if (analyse && DUPLICATES) printDuplicateStrings(snapshot);
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const place = placeOf.get(i);
    const key = `${nodeKey(nodeType(snapshot, i), nodeName(snapshot, i), SPLIT_TEXT)}${place ? ` @ ${place}` : ""}`;
    const bucket = buckets.get(key.slice(0, 80)) ?? { count: 0, bytes: 0 };
    bucket.count++;
    bucket.bytes += snapshot.nodes[i + sizeAt] as number;
    buckets.set(key.slice(0, 80), bucket);
  }
  return buckets;
}

async function start(): Promise<{ server: RunningServer; endpoint: Omit<Endpoint, "origin">; target?: Target }> {
  if (which === "floor") {
    const script = fileURLToPath(new URL("./floor-server.ts", import.meta.url));
    const server = await startScriptServer(script, nodeOptions({ inspect: true }));
    const dialect = { ...sdkDialect("store-001"), taskIdOf: () => "floor" };
    return { server, endpoint: { path: "/", dialect } };
  }
  if (which !== "ours" && which !== "sdk")
    throw new Error("usage: heap-per-stream.ts ours|sdk|floor [task|subscribe] [N]");
  const target = await createTarget(which);
  const server = await target.start("streams", { inspect: true });
  return { server, endpoint: { path: target.path, dialect: target.dialect }, target };
}

async function main(): Promise<void> {
  const { server, endpoint: partial, target } = await start();
  const endpoint: Endpoint = { origin: server.origin, ...partial };
  const { dialect } = endpoint;
  const pool = createPool(server.origin, 2 * perStep + 500);
  const open: OpenedStream[] = [];
  try {
    let seq = 0;
    const newTask = () => dialect.start(`heap-${seq++}-${crypto.randomUUID()}`);
    const warm = await openIdleStreams(pool, endpoint, 200, newTask, 64);
    const ids = warm.streams.map((s) => s.taskId as string);
    for (const stream of warm.streams) stream.close();
    const body =
      kind === "subscribe" && which !== "floor" ? () => dialect.subscribe(ids[seq++ % ids.length] as string) : newTask;
    const inspector = server.inspector as string;
    const rssAfterGc = async () => {
      await collectGarbage(inspector);
      return settledRssKiB(server.pid, { settleMs: 1_000, samples: 3, everyMs: 250 });
    };
    const rssBase = await rssAfterGc();
    open.push(...(await openIdleStreams(pool, endpoint, perStep, body, 64)).streams);
    const rssPerStream = ((await rssAfterGc()) - rssBase) / perStep;
    const before = await heapByConstructor(inspector);
    open.push(...(await openIdleStreams(pool, endpoint, perStep, body, 64)).streams);
    const after = await heapByConstructor(inspector, true);
    const rows = [...after].map(([key, a]) => {
      const b = before.get(key) ?? { count: 0, bytes: 0 };
      return { key, count: (a.count - b.count) / perStep, bytes: (a.bytes - b.bytes) / perStep };
    });
    rows.sort((x, y) => y.bytes - x.bytes);
    const total = rows.reduce((sum, r) => sum + r.bytes, 0);
    process.stdout.write(
      `${which}${which === "floor" ? "" : ` ${kind}`}: ${open.filter((s) => !s.closed).length} streams open; per stream ` +
        `${(total / 1024).toFixed(1)} KiB of live heap (by constructor below: bytes and objects per stream); ` +
        `${rssPerStream.toFixed(1)} KiB of RSS after GC over the first ${perStep}\n`,
    );
    for (const r of rows.slice(0, Number(process.env.A2A_HEAP_ROWS ?? 30))) {
      process.stdout.write(`${r.bytes.toFixed(0).padStart(7)} B ${r.count.toFixed(2).padStart(7)}×  ${r.key}\n`);
    }
  } finally {
    for (const stream of open) stream.close();
    await server.kill();
    await pool.destroy().catch(() => undefined);
    await target?.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `heap-per-stream failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
