/**
 * Load generation for `pnpm bench:a2a`: plain Node on undici Pools (keep-alive connections, fixed
 * concurrency, fixed duration after a warm-up). One JSON-RPC endpoint, any dialect.
 */
import { createRequire } from "node:module";
import type { Dialect } from "./dialects.ts";
import { type SseFrame, SseFrameSplitter } from "./sse-frames.ts";

// bench/ is not a workspace package: undici resolves from the client package, which depends on it.
const require = createRequire(new URL("../../packages/a2a-client/package.json", import.meta.url));
const undici = require("undici") as typeof import("undici");
export type Pool = import("undici").Pool;

export interface Endpoint {
  origin: string;
  path: string;
  dialect: Dialect;
}

/** Keep-alive connections; no body timeout, because an idle stream may stay silent for minutes. */
export function createPool(origin: string, connections: number): Pool {
  return new undici.Pool(origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 4_000, // below both servers' 5 s, so the client never reuses a socket being closed
    headersTimeout: 60_000,
    bodyTimeout: 0,
  });
}

export interface StreamEnd {
  /** The terminal state the stream announced, if it got that far. */
  terminal: string | undefined;
  frames: number;
  at: number;
  error?: unknown;
}

export interface OpenedStream {
  taskId: string | undefined;
  /** performance.now() when the request was issued and when its first event arrived. */
  sentAt: number;
  firstAt: number;
  ended: Promise<StreamEnd>;
  /** True once the response ended or broke (a drop, for a stream that should stay open). */
  readonly closed: boolean;
  close(): void;
}

/** Sends a streaming request and resolves at its first event; the rest is read in the background. */
/** `onFrame`: called with each frame as it arrives and the moment it did (`performance.now()`). */
export async function openStream(
  pool: Pool,
  endpoint: Endpoint,
  body: string,
  onFrame?: (frame: SseFrame, at: number) => void,
): Promise<OpenedStream> {
  const controller = new AbortController();
  const sentAt = performance.now();
  const res = await pool.request({
    ...restOr(endpoint, body),
    headers: endpoint.dialect.headers,
    signal: controller.signal,
  });
  const type = String(res.headers["content-type"] ?? "");
  if (res.statusCode !== 200 || !type.startsWith("text/event-stream")) {
    const text = await res.body.text();
    throw new Error(`expected an SSE stream, got HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  }
  const splitter = new SseFrameSplitter();
  let frames = 0;
  let terminal: string | undefined;
  let closed = false;
  let onFirst: ((frame: SseFrame) => void) | undefined;
  let onFail: ((error: unknown) => void) | undefined;
  const first = new Promise<SseFrame>((resolve, reject) => {
    onFirst = resolve;
    onFail = reject;
  });
  const ended = new Promise<StreamEnd>((resolve) => {
    const finish = (error?: unknown) => {
      if (closed) return;
      closed = true;
      onFail?.(error ?? new Error("the stream ended before its first event"));
      resolve({ terminal, frames, at: performance.now(), ...(error === undefined ? {} : { error }) });
    };
    res.body.on("data", (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        frames++;
        onFrame?.(frame, performance.now());
        if (frames === 1) onFirst?.(frame);
        terminal ??= endpoint.dialect.terminalStateOf(frame);
      }
    });
    res.body.on("end", () => finish());
    res.body.on("error", (error: unknown) => finish(error));
  });
  const frame = await first;
  const firstAt = performance.now();
  return {
    taskId: endpoint.dialect.taskIdOf(frame),
    sentAt,
    firstAt,
    ended,
    get closed() {
      return closed;
    },
    close: () => controller.abort(),
  };
}

/** Time to the first SSE event of `starts` sequential new tasks (each read to its end before the next). */
/**
 * A start's request: a JSON-RPC POST of `body` to the endpoint, or, for the HTTP+JSON binding, its route.
 * `body` is then the start's messageId (see `startBody`).
 */
function restOr(endpoint: Endpoint, body: string): { method: "GET" | "POST"; path: string; body?: string } {
  return endpoint.dialect.rest?.start(endpoint.path, body) ?? { method: "POST", path: endpoint.path, body };
}

/** What a start sends: its JSON-RPC body, or (HTTP+JSON) only its messageId, which `restOr` routes. */
export function startBody(endpoint: Endpoint, messageId: string): string {
  return endpoint.dialect.rest ? messageId : endpoint.dialect.start(messageId);
}

/** A GetTask's request, by binding. */
function getTaskRequest(endpoint: Endpoint, id: string): { method: "GET" | "POST"; path: string; body?: string } {
  return (
    endpoint.dialect.rest?.getTask(endpoint.path, id) ?? {
      method: "POST",
      path: endpoint.path,
      body: endpoint.dialect.getTask(id),
    }
  );
}

export async function timeToFirstEvent(
  pool: Pool,
  endpoint: Endpoint,
  counts: { starts: number; warmups: number },
): Promise<FirstEventTimes> {
  return firstEventTimes(counts, async (messageId) => {
    const stream = await openStream(pool, endpoint, startBody(endpoint, messageId));
    const end = await stream.ended;
    return { sentAt: stream.sentAt, firstAt: stream.firstAt, taskId: stream.taskId, terminal: end.terminal };
  });
}

export interface FirstEventTimes {
  /** Start to first event of each measured task (ms). */
  ms: number[];
  taskIds: string[];
  completed: number;
}

/** Time to the first event of `starts` sequential new tasks (`start` resolves once one has ended), after `warmups`. */
export async function firstEventTimes(
  { starts, warmups }: { starts: number; warmups: number },
  start: (
    messageId: string,
  ) => Promise<{ sentAt: number; firstAt: number; taskId?: string | undefined; terminal?: string | undefined }>,
): Promise<FirstEventTimes> {
  const ms: number[] = [];
  const taskIds: string[] = [];
  let completed = 0;
  for (let i = 0; i < warmups + starts; i++) {
    const run = await start(`ttfe-${i}-${crypto.randomUUID()}`);
    if (i < warmups) continue;
    ms.push(run.firstAt - run.sentAt);
    if (run.taskId) taskIds.push(run.taskId);
    if (run.terminal === "completed") completed++;
  }
  return { ms, taskIds, completed };
}

export interface SustainedTasks {
  /** Tasks that ran to `completed` within the measured window. */
  completed: number;
  perSecond: number;
  /** Tasks that ended otherwise, or streams that broke, in the window. */
  failures: number;
  /** Start-to-end time of the counted tasks (ms). */
  durations: number[];
  /** Completed tasks per lane (server instance), in the order the lanes were given. */
  completedPerLane: number[];
}

/** One server instance under load: its endpoint and the client pool that reaches it. */
export interface Lane {
  pool: Pool;
  endpoint: Endpoint;
}

/**
 * `concurrency` clients each starting a task and following it to its end, again and again. With several
 * lanes (server instances sharing one store) client w uses lane w mod lanes: the clients are split evenly,
 * all in one measured window, so the figure is the throughput of the instances together.
 */
export async function sustainedTasks(lanes: readonly Lane[], window: LoadWindow): Promise<SustainedTasks> {
  if (lanes.length === 0) throw new Error("no server to load");
  const completedPerLane = lanes.map(() => 0);
  const run = await tasksInWindow(window, async (w, messageId) => {
    const lane = w % lanes.length;
    const { pool, endpoint } = lanes[lane] as Lane;
    const stream = await openStream(pool, endpoint, startBody(endpoint, messageId));
    const end = await stream.ended;
    return {
      sentAt: stream.sentAt,
      endAt: end.at,
      terminal: end.terminal,
      onCounted: () => {
        completedPerLane[lane] = (completedPerLane[lane] as number) + 1;
      },
    };
  });
  return { ...run, completedPerLane };
}

/** A measured load: `concurrency` workers, a warm-up that is not counted, then the window counted (ms). */
export interface LoadWindow {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

/**
 * `window.concurrency` workers each starting a task (`start(worker, messageId)`, resolved at its end) and
 * again, until the window ends; a task counts when it ended inside the window: completed, or a failure.
 * Throws the first error when no task completed at all (the target is down, not slow).
 */
export async function tasksInWindow(
  { concurrency, warmupMs, durationMs }: LoadWindow,
  start: (
    worker: number,
    messageId: string,
  ) => Promise<{ sentAt: number; endAt: number; terminal?: string | undefined; onCounted?: () => void }>,
): Promise<Omit<SustainedTasks, "completedPerLane">> {
  const windowStart = performance.now() + warmupMs;
  const windowEnd = windowStart + durationMs;
  const durations: number[] = [];
  let failures = 0;
  let firstError: unknown;
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < windowEnd; i++) {
      try {
        const run = await start(w, `tps-${w}-${i}-${crypto.randomUUID()}`);
        if (run.endAt < windowStart || run.endAt > windowEnd) continue;
        if (run.terminal === "completed") {
          durations.push(run.endAt - run.sentAt);
          run.onCounted?.();
        } else failures++;
      } catch (error) {
        firstError ??= error;
        if (performance.now() >= windowStart && performance.now() <= windowEnd) failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  if (durations.length === 0 && firstError) throw firstError;
  return { completed: durations.length, perSecond: durations.length / (durationMs / 1000), failures, durations };
}

/**
 * `window.concurrency` workers sending one request after another (`send(i)`, true for a right answer)
 * until the window ends; only requests sent and answered inside the window count.
 */
export async function requestsInWindow(
  { concurrency, warmupMs, durationMs }: LoadWindow,
  send: (i: number) => Promise<boolean>,
): Promise<Throughput> {
  const windowStart = performance.now() + warmupMs;
  const windowEnd = windowStart + durationMs;
  const latencies: number[] = [];
  let errors = 0;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < windowEnd; i++) {
      const sent = performance.now();
      const ok = await send(i).catch(() => false);
      const done = performance.now();
      if (sent < windowStart || done > windowEnd) continue;
      if (ok) latencies.push(done - sent);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return { requests: latencies.length, perSecond: latencies.length / (durationMs / 1000), errors, latencies };
}

export interface Throughput {
  requests: number;
  perSecond: number;
  errors: number;
  /** Latency of the measured requests (ms). */
  latencies: number[];
}

/** `concurrency` clients polling GetTask on random known tasks, back to back. */
export async function getTaskThroughput(
  pool: Pool,
  endpoint: Endpoint,
  taskIds: readonly string[],
  window: LoadWindow,
): Promise<Throughput> {
  if (taskIds.length === 0) throw new Error("no task ids to poll");
  // One full check before the run: the cheap per-response check below relies on it.
  const probe = await pool.request({
    ...getTaskRequest(endpoint, taskIds[0] as string),
    headers: endpoint.dialect.headers,
  });
  const probeBody = (await probe.body.json()) as { id?: string; result?: { id?: string } };
  const probedId = endpoint.dialect.rest ? probeBody.id : probeBody.result?.id;
  if (probe.statusCode !== 200 || probedId !== taskIds[0]) {
    throw new Error(`GetTask probe failed: HTTP ${probe.statusCode} ${JSON.stringify(probeBody).slice(0, 300)}`);
  }
  return requestsInWindow(window, async (i) => {
    const res = await pool.request({
      ...getTaskRequest(endpoint, taskIds[i % taskIds.length] as string),
      headers: endpoint.dialect.headers,
    });
    const text = await res.body.text();
    return res.statusCode === 200 && endpoint.dialect.isTask(text);
  });
}

/**
 * Opens `count` more streams (`parallel` being opened at a time), each resolved at its first event and
 * then left open and idle. Streams that fail to open are counted, not retried.
 */
export function openIdleStreams(
  pool: Pool,
  endpoint: Endpoint,
  count: number,
  body: (i: number) => string,
  parallel: number,
): Promise<{ streams: OpenedStream[]; failed: number; firstError?: unknown }> {
  return openMany(count, (i) => openStream(pool, endpoint, body(i)), parallel);
}

/** openIdleStreams over any binding: `open(i)` opens the i-th stream and resolves at its first event. */
export async function openMany(
  count: number,
  open: (i: number) => Promise<OpenedStream>,
  parallel: number,
): Promise<{ streams: OpenedStream[]; failed: number; firstError?: unknown }> {
  const streams: OpenedStream[] = [];
  let next = 0;
  let failed = 0;
  let firstError: unknown;
  const opener = async () => {
    while (next < count) {
      const i = next++;
      try {
        streams.push(await open(i));
      } catch (error) {
        failed++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, opener));
  return { streams, failed, ...(firstError === undefined ? {} : { firstError }) };
}
