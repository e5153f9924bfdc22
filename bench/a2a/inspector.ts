/**
 * A full GC and the live heap size of a server process, from outside: the process is started with
 * `--inspect=127.0.0.1:0` (a bench-only Node flag, nothing in the product) and this client sends
 * `HeapProfiler.collectGarbage` and `Runtime.getHeapUsage` over the DevTools protocol.
 */

/** The DevTools WebSocket URL a process printed on stderr ("Debugger listening on ws://…"). */
export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
}

export interface HeapUsage {
  /** Bytes of live objects on the V8 heap after the GC. */
  usedBytes: number;
  /** Bytes the V8 heap has reserved. */
  totalBytes: number;
}

/** Runs a full GC in the process, then reports its heap. Connects, asks, disconnects. */
export async function collectGarbage(url: string): Promise<HeapUsage> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot reach the inspector at ${url}`)), { once: true });
  });
  let nextId = 0;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id as number);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  const call = (method: string) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    // Twice: objects freed by the first pass (weak references, finalizers) go in the second.
    await call("HeapProfiler.collectGarbage");
    await call("HeapProfiler.collectGarbage");
    const usage = (await call("Runtime.getHeapUsage")) as { usedSize: number; totalSize: number };
    return { usedBytes: usage.usedSize, totalBytes: usage.totalSize };
  } finally {
    ws.close();
  }
}
