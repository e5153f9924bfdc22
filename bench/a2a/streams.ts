/**
 * Memory per idle open stream: a server process whose tasks never progress (robot step of an hour),
 * N streams opened and left idle, and the process's memory read from outside before and after.
 *
 * Two kinds of stream: `task` — each stream is the SendStreamingMessage of a task of its own that stays
 * `working` (what 5,000 partners following 5,000 tasks cost); `subscribe` — SubscribeToTask streams
 * spread over 200 working tasks (the stream alone). A gRPC target (`ours-grpc`, `sdk-grpc`) holds them as
 * server-streaming calls on one grpc-js channel (HTTP/2 streams of one connection), the others as SSE
 * responses, one keep-alive connection each.
 */

import { GrpcLoadClient } from "./grpc-load.ts";
import { collectGarbage, processMemory } from "./inspector.ts";
import { createPool, type Endpoint, type OpenedStream, openMany, openStream } from "./load.ts";
import { cpuShare, settledRssKiB } from "./proc.ts";
import type { RunningServer, Target } from "./targets.ts";

export type StreamKind = "task" | "subscribe";

export interface MemorySample {
  /** VmRSS once settled (3 s, median of 3 readings), no GC forced. */
  rssKiB: number;
  /** VmRSS after two full GCs forced through the inspector. */
  rssAfterGcKiB: number;
  /** Live V8 heap after those GCs. */
  heapKiB: number;
}

export interface StreamPoint {
  /** Streams asked for at this step (the --streams / --subscribe-streams count). */
  requested: number;
  /** Streams still open when memory was read (requested minus failures and drops). */
  streams: number;
  memory: MemorySample;
  /** (memory − baseline) / streams, in KiB, for each of the three readings. */
  perStream: MemorySample;
}

export interface StreamScenario {
  kind: StreamKind;
  baseline: MemorySample;
  points: StreamPoint[];
  openPerSecond: number;
  failedToOpen: number;
  /** Streams that ended while they should have stayed open. */
  dropped: number;
  /** Share of one core the server used while all streams sat idle. */
  idleCpu: number;
}

export interface StreamOptions {
  counts: number[];
  openParallel: number;
  idleCpuMs: number;
  log(line: string): void;
}

const WARMUP_TASKS = 200;

async function sampleMemory(server: RunningServer): Promise<MemorySample> {
  const rssKiB = await settledRssKiB(server.pid, { settleMs: 3_000, samples: 3, everyMs: 500 });
  if (!server.inspector) throw new Error("the streams process was started without the inspector");
  const heap = await collectGarbage(server.inspector);
  const rssAfterGcKiB = await settledRssKiB(server.pid, { settleMs: 500, samples: 3, everyMs: 250 });
  // A2A_BENCH_MEMORY_DETAIL=1: where the RSS is after the GC (V8's spaces as committed, memory outside them).
  if (process.env.A2A_BENCH_MEMORY_DETAIL) {
    const { usage, spaces } = await processMemory(server.inspector);
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    process.stderr.write(
      `      after GC: external ${mib(usage.external)} MiB (array buffers ${mib(usage.arrayBuffers)}), ` +
        `heap committed ${mib(usage.heapTotal)}: ${spaces.map((space) => `${space.name} ${mib(space.committed)}`).join(", ")}\n`,
    );
  }
  return { rssKiB, rssAfterGcKiB, heapKiB: heap.usedBytes / 1024 };
}

function perStream(memory: MemorySample, baseline: MemorySample, streams: number): MemorySample {
  return {
    rssKiB: (memory.rssKiB - baseline.rssKiB) / streams,
    rssAfterGcKiB: (memory.rssAfterGcKiB - baseline.rssAfterGcKiB) / streams,
    heapKiB: (memory.heapKiB - baseline.heapKiB) / streams,
  };
}

export async function measureStreams(
  target: Target,
  kind: StreamKind,
  options: StreamOptions,
): Promise<StreamScenario> {
  const { counts, openParallel, log } = options;
  const server = await target.start("streams", { inspect: true });
  const max = counts.at(-1) as number;
  const opener = await openerFor(target, server, max + 2 * WARMUP_TASKS + openParallel);
  const open: OpenedStream[] = [];
  let seq = 0;
  const newTask = () => opener.start(`idle-${seq++}-${crypto.randomUUID()}`);
  try {
    // Warm-up: the code paths run (and are compiled) before the baseline. These streams are closed;
    // their tasks stay `working`, are part of the baseline, and are what subscriptions attach to.
    const warm = await openMany(WARMUP_TASKS, newTask, openParallel);
    if (warm.failed > 0) throw warm.firstError;
    const taskIds = warm.streams.map((s) => s.taskId).filter((id): id is string => id !== undefined);
    for (const stream of warm.streams) stream.close();
    const subscribe = () => opener.subscribe(taskIds[seq++ % taskIds.length] as string);
    const body = kind === "task" ? newTask : subscribe;
    if (kind === "subscribe") {
      const warmSubs = await openMany(WARMUP_TASKS, subscribe, openParallel);
      if (warmSubs.failed > 0) throw warmSubs.firstError;
      for (const stream of warmSubs.streams) stream.close();
    }

    const baseline = await sampleMemory(server);
    log(
      `  ${kind} streams: baseline RSS ${mib(baseline.rssAfterGcKiB)} MiB after GC, heap ${mib(baseline.heapKiB)} MiB ` +
        `(${WARMUP_TASKS} working tasks)`,
    );
    const points: StreamPoint[] = [];
    let failedToOpen = 0;
    let openMs = 0;
    for (const count of counts) {
      const started = performance.now();
      const opened = await openMany(count - open.length, body, openParallel);
      const tookMs = performance.now() - started;
      openMs += tookMs;
      open.push(...opened.streams);
      failedToOpen += opened.failed;
      if (opened.failed > 0) log(`    ${opened.failed} streams failed to open: ${String(opened.firstError)}`);
      const memory = await sampleMemory(server);
      const held = open.filter((s) => !s.closed).length;
      const point = { requested: count, streams: held, memory, perStream: perStream(memory, baseline, held) };
      points.push(point);
      log(
        `    ${held} open (${opened.streams.length} opened in ${(tookMs / 1000).toFixed(1)} s): ` +
          `RSS ${mib(memory.rssKiB)} MiB settled, ${mib(memory.rssAfterGcKiB)} MiB after GC, heap ${mib(memory.heapKiB)} MiB ` +
          `→ per stream ${point.perStream.rssAfterGcKiB.toFixed(1)} KiB RSS after GC ` +
          `(${point.perStream.rssKiB.toFixed(1)} settled, ${point.perStream.heapKiB.toFixed(1)} heap)`,
      );
    }
    const idleCpu = await cpuShare(server.pid, options.idleCpuMs);
    const dropped = open.filter((s) => s.closed).length;
    log(`    idle CPU with ${open.length} streams: ${(idleCpu * 100).toFixed(1)}% of a core; ${dropped} dropped`);
    return {
      kind,
      baseline,
      points,
      openPerSecond: (open.length + failedToOpen) / (openMs / 1000),
      failedToOpen,
      dropped,
      idleCpu,
    };
  } finally {
    for (const stream of open) stream.close();
    await server.kill();
    await opener.close();
  }
}

/** How a scenario opens its streams: SSE over an undici pool, or server-streaming gRPC calls. */
interface Opener {
  start(messageId: string): Promise<OpenedStream>;
  subscribe(taskId: string): Promise<OpenedStream>;
  close(): Promise<void>;
}

async function openerFor(target: Target, server: RunningServer, connections: number): Promise<Opener> {
  if (target.grpc) {
    if (!server.grpcAddress) throw new Error(`${target.id} started no gRPC server`);
    const client = new GrpcLoadClient({ address: server.grpcAddress, ...target.grpc });
    await client.ready();
    return {
      start: (messageId) => client.openIdle("task", messageId),
      subscribe: (taskId) => client.openIdle("subscribe", taskId),
      close: async () => client.close(),
    };
  }
  const pool = createPool(server.origin, connections);
  const endpoint: Endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };
  return {
    start: (messageId) => openStream(pool, endpoint, target.dialect.start(messageId)),
    subscribe: (taskId) => openStream(pool, endpoint, target.dialect.subscribe(taskId)),
    close: () => pool.destroy().catch(() => undefined),
  };
}

function mib(kib: number): string {
  return (kib / 1024).toFixed(1);
}
