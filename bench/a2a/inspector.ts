/**
 * A server process seen over the DevTools protocol, from outside: the process is started with
 * `--inspect=127.0.0.1:0` (a bench-only Node flag, nothing in the product), and this client asks it for
 * a full GC and its live heap (`collectGarbage`) or samples where its heap is allocated
 * (`startHeapSampling`, heap-sampling.ts reads the profile).
 */

/** The DevTools WebSocket URL a process printed on stderr ("Debugger listening on ws://…"). */
export function inspectorUrl(stderr: string): string | undefined {
  // The last one: a server that restarted itself with its heap defaults printed one per start.
  return [...stderr.matchAll(/Debugger listening on (ws:\/\/\S+)/g)].at(-1)?.[1];
}

export interface HeapUsage {
  /** Bytes of live objects on the V8 heap after the GC. */
  usedBytes: number;
  /** Bytes the V8 heap has reserved. */
  totalBytes: number;
}

/** One DevTools connection: calls answered by id. */
class InspectorSession {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id as number);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    });
  }

  static async open(url: string): Promise<InspectorSession> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve(), { once: true });
      ws.addEventListener("error", () => reject(new Error(`cannot reach the inspector at ${url}`)), { once: true });
    });
    return new InspectorSession(ws);
  }

  call(method: string, params?: Record<string, unknown>): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const id = ++this.nextId;
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
    });
  }

  close(): void {
    this.ws.close();
  }
}

/** Runs a full GC in the process, then reports its heap. Connects, asks, disconnects. */
export async function collectGarbage(url: string): Promise<HeapUsage> {
  const session = await InspectorSession.open(url);
  try {
    // Twice: objects freed by the first pass (weak references, finalizers) go in the second.
    await session.call("HeapProfiler.collectGarbage");
    await session.call("HeapProfiler.collectGarbage");
    const usage = (await session.call("Runtime.getHeapUsage")) as { usedSize: number; totalSize: number };
    return { usedBytes: usage.usedSize, totalBytes: usage.totalSize };
  } finally {
    session.close();
  }
}

/** A V8 sampling heap profile (`HeapProfiler.SamplingHeapProfile`), as heap-sampling.ts reads it. */
export interface SamplingHeapProfile {
  head: SamplingHeapNode;
}

export interface SamplingHeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  /** Bytes sampled as allocated in this frame itself. */
  selfSize: number;
  children: SamplingHeapNode[];
}

/**
 * Starts V8's sampling heap profiler in the process. `allocated`: every allocation sampled, garbage
 * included (what churns the heap); otherwise only what is still alive when the profile is taken (what is
 * held). Returns the function that stops it and hands back the profile.
 */
export async function startHeapSampling(
  url: string,
  { allocated, samplingInterval = 64 * 1024 }: { allocated: boolean; samplingInterval?: number },
): Promise<() => Promise<SamplingHeapProfile>> {
  const session = await InspectorSession.open(url);
  await session.call("HeapProfiler.enable");
  await session.call("HeapProfiler.startSampling", {
    samplingInterval,
    includeObjectsCollectedByMajorGC: allocated,
    includeObjectsCollectedByMinorGC: allocated,
  });
  return async () => {
    try {
      const { profile } = (await session.call("HeapProfiler.stopSampling")) as { profile: SamplingHeapProfile };
      return profile;
    } finally {
      session.close();
    }
  };
}

/** What the process says of its memory (no GC forced): `process.memoryUsage()` and V8's heap by space. */
export interface ProcessMemory {
  usage: NodeJS.MemoryUsage;
  /** Each V8 heap space: committed and used bytes. */
  spaces: Array<{ name: string; committed: number; used: number }>;
}

export async function processMemory(url: string): Promise<ProcessMemory> {
  const session = await InspectorSession.open(url);
  try {
    const expression = `JSON.stringify({
      usage: process.memoryUsage(),
      spaces: process.getBuiltinModule("node:v8").getHeapSpaceStatistics().map((s) => ({
        name: s.space_name, committed: s.physical_space_size, used: s.space_used_size,
      })),
    })`;
    const answer = (await session.call("Runtime.evaluate", { expression, returnByValue: true })) as {
      result: { value: string };
    };
    return JSON.parse(answer.result.value) as ProcessMemory;
  } finally {
    session.close();
  }
}
