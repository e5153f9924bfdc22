import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { type Database, type Queryable, type QueryOptions, type QueryResult, quoteChannel } from "./database.js";
import { PGliteAutovacuum, type PGliteAutovacuumOptions } from "./internal/pglite-autovacuum.js";
import {
  CONTROL_SLOTS,
  POSTED_REPLIES,
  POSTED_REQUESTS,
  restoreError,
  type WorkerInit,
  type WorkerReply,
  type WorkerRequest,
} from "./internal/pglite-worker-messages.js";

export interface PGliteWorkerDatabaseOptions {
  /** PGlite's stand-in for autovacuum (see `PGliteDatabaseOptions.autovacuum`). Default on. */
  autovacuum?: boolean | PGliteAutovacuumOptions;
}

/**
 * The worker's entry, built next to the package's index (`dist/pglite-worker.js`). The same relative URL
 * holds from the bundled `dist/index.*` and from `src/*.ts` (tests run the built worker: build first).
 */
const WORKER_ENTRY = new URL("../dist/pglite-worker.js", import.meta.url);

/**
 * How long the calling thread may sleep waiting for a statement it asked for on an idle worker before it
 * goes back to its event loop and takes the answer from there (a statement that runs long, a worker that
 * hangs): the bound on how long this can hold up everything else on that thread.
 */
const MAX_BLOCKING_WAIT_MS = 20;

/** How long a closed worker may take to end on its own before it is terminated. */
const CLOSE_GRACE_MS = 5_000;

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * Opens PGlite in a worker thread and returns a Database over it. PostgreSQL in WASM then executes on a
 * core of its own while the calling thread serves requests: a group commit no longer stops the server
 * for the milliseconds it takes. A statement asked for while the worker has nothing else to do is waited
 * for synchronously (the calling thread sleeps in `Atomics.wait` and the worker wakes from one: tens of
 * microseconds), unless it is marked `background`; any other is answered through the event loop. The
 * data directory is not locked here (`openDatabase` does that).
 */
export async function openPGliteWorkerDatabase(
  dataDir: string,
  options: PGliteWorkerDatabaseOptions = {},
): Promise<Database> {
  const connection = new PGliteWorkerConnection(dataDir);
  await connection.ready;
  const autovacuumOptions = options.autovacuum ?? true;
  const autovacuum =
    autovacuumOptions === false
      ? undefined
      : new PGliteAutovacuum(
          {
            query: (sql, params) => connection.query(sql, params, { background: true }),
            exec: (sql) => connection.exec(sql),
          },
          autovacuumOptions === true ? {} : autovacuumOptions,
          () => !connection.closed,
        );
  return {
    kind: "pglite",
    inWorker: true,
    query: (sql, params, queryOptions) => connection.query(sql, params, queryOptions),
    exec: (sql) => connection.exec(sql),
    transaction: (fn) => connection.transaction(fn),
    listen: (channel, onPayload) => connection.listen(channel, onPayload),
    async notify(channel, payload) {
      await connection.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await autovacuum?.stop();
      await connection.close();
    },
  };
}

class PGliteWorkerConnection {
  readonly ready: Promise<void>;
  closed = false;
  private readonly worker: Worker;
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  private readonly requests: MessagePort;
  private readonly replies: MessagePort;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<number, (payload: string) => void>();
  private nextId = 1;
  /** Begun and not yet ended: the worker cannot run other statements before their owners go on. */
  private openTransactions = 0;
  /** Why the worker can no longer answer (it exited, or threw): every later request fails with it. */
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;
  /** Resolves once the worker's thread has ended, however it ended. */
  private readonly exited: Promise<void>;

  constructor(dataDir: string) {
    const requests = new MessageChannel();
    const replies = new MessageChannel();
    this.requests = requests.port1;
    this.replies = replies.port1;
    const init: WorkerInit = {
      dataDir,
      control: this.control.buffer as SharedArrayBuffer,
      requests: requests.port2,
      replies: replies.port2,
    };
    this.worker = new Worker(WORKER_ENTRY, {
      workerData: init,
      transferList: [requests.port2, replies.port2],
      // Not the process's flags: some are refused in a worker (`--input-type`), none concern it.
      execArgv: [],
    });
    let opened!: (error?: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      opened = (error) => (error ? reject(error) : resolve());
    });
    this.replies.on("message", (message: WorkerReply) => {
      if (!("ready" in message)) return this.onReply(message);
      // Kept alive only while it has requests to answer (see `send`): an idle database keeps no process
      // running, as PGlite on the calling thread does not.
      if (this.pending.size === 0) this.worker.unref();
      // PGlite could not open (a damaged data directory …): the worker serves nothing, so it goes now.
      if (message.error) void this.worker.terminate();
      opened(message.error && restoreError(message.error));
    });
    this.worker.on("error", (error) => {
      this.fail(new Error(`the embedded database's worker failed: ${error.message}`, { cause: error }));
      opened(this.failure);
    });
    this.exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.on("exit", (code) => {
      this.fail(new Error(`the embedded database's worker exited (code ${code})`));
      opened(this.failure);
    });
    this.replies.unref();
  }

  query<Row>(
    sql: string,
    params: readonly unknown[] = [],
    options?: QueryOptions,
    tx?: number,
  ): Promise<QueryResult<Row>> {
    const request: Request = {
      op: "query",
      sql,
      params,
      ...(options?.name ? { name: options.name } : {}),
      ...(tx === undefined ? {} : { tx }),
    };
    return this.send(request, !options?.background) as Promise<QueryResult<Row>>;
  }

  async exec(sql: string, tx?: number): Promise<void> {
    // Scripts (migrations, vacuum) are never waited for with the thread asleep.
    await this.send(tx === undefined ? { op: "exec", sql } : { op: "exec", sql, tx }, false);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // Counted from the moment it is asked for: a statement asked for in the same turn as the answer to
    // `begin` arrives must not put this thread to sleep behind it.
    this.openTransactions++;
    try {
      const tx = (await this.send({ op: "begin" }, true)) as number;
      return await this.runTransaction(tx, fn);
    } finally {
      this.openTransactions--;
    }
  }

  private async runTransaction<T>(tx: number, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await fn({
        query: (sql, params, options) => this.query(sql, params, options, tx),
        exec: (sql) => this.exec(sql, tx),
      });
    } catch (error) {
      // The caller's error is the one that matters; a failed rollback ends the transaction all the same.
      await this.send({ op: "end", tx, commit: false }, true).catch(() => undefined);
      throw error;
    }
    await this.send({ op: "end", tx, commit: true }, true);
    return value;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    quoteChannel(channel); // validates before the worker sees it
    const listener = this.nextId; // the id `send` gives the listen request: the worker names its NOTIFYs by it
    this.listeners.set(listener, onPayload);
    try {
      await this.send({ op: "listen", channel }, false);
    } catch (error) {
      this.listeners.delete(listener);
      throw error;
    }
    let stopped = false;
    return async () => {
      if (stopped || this.closed) return;
      stopped = true;
      this.listeners.delete(listener);
      await this.send({ op: "unlisten", listener }, false);
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Once PGlite has closed, the worker's thread ends by itself; it is terminated if it has not within
      // the grace period (a statement that does not end, a worker that hangs).
      const timer = setTimeout(() => void this.worker.terminate(), CLOSE_GRACE_MS);
      try {
        if (!this.failure) await this.send({ op: "close" }, false).catch(() => undefined);
        this.closed = true;
        this.worker.ref(); // until it has gone, as a close awaited by its caller should
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.closing;
  }

  private send(request: Request, mayBlock: boolean): Promise<unknown> {
    // While closing, only what ends the work under way still goes: an open transaction's end, the close.
    if (this.closing && request.op !== "close" && request.op !== "end") {
      return Promise.reject(new Error("the embedded database is closed"));
    }
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    try {
      this.requests.postMessage({ ...request, id });
    } catch (error) {
      // A parameter structured clone refuses (a function, a symbol): this statement fails, nothing else.
      this.pending.delete(id);
      return Promise.reject(error);
    }
    Atomics.add(this.control, POSTED_REQUESTS, 1);
    Atomics.notify(this.control, POSTED_REQUESTS);
    if (this.pending.size === 1) this.worker.ref();
    // Alone in the worker's queue, the answer is a statement's time away: sleeping for it beats a trip
    // through the event loop. With others ahead of it, the wait could be a group commit's, and with a
    // transaction open it could wait for that transaction's next statement from this very thread: never
    // block then (a statement inside the transaction is its own next statement, and may).
    const othersOpen = this.openTransactions - (request.op === "begin" ? 1 : 0);
    const alone = this.pending.size === 1 && (othersOpen === 0 || "tx" in request);
    if (mayBlock && alone) this.waitBlocking(id);
    return answered;
  }

  /** Sleeps until the reply to `id` arrives or the bound passes, taking replies straight off the port. */
  private waitBlocking(id: number): void {
    const deadline = performance.now() + MAX_BLOCKING_WAIT_MS;
    for (;;) {
      const seen = Atomics.load(this.control, POSTED_REPLIES);
      for (let message = receiveMessageOnPort(this.replies); message; message = receiveMessageOnPort(this.replies)) {
        this.onReply(message.message as WorkerReply);
      }
      const left = deadline - performance.now();
      if (!this.pending.has(id) || this.failure || left <= 0) return;
      // Asleep, not watching: the worker (and on a small machine, whatever else runs) needs the core more.
      Atomics.wait(this.control, POSTED_REPLIES, seen, left);
    }
  }

  private onReply(message: WorkerReply): void {
    if ("ready" in message) return;
    if ("listener" in message) {
      const listener = this.listeners.get(message.listener);
      // Called like a reply's continuation: never from inside another caller's `query`.
      if (listener) queueMicrotask(() => listener(message.payload));
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker.unref();
    if (message.ok) pending.resolve(message.value);
    else pending.reject(restoreError(message.error));
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.closed = true;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
