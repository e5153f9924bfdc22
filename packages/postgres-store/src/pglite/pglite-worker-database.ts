import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { type Database, type Queryable, type QueryOptions, type QueryResult, quoteChannel } from "../database.js";
import { WORKER_ENTRY_URL } from "../package-files.js";
import { safely } from "../safely.js";
import { type PGliteMaintenanceOptions, startPGliteMaintenance } from "./pglite-maintenance.js";
import {
  CONTROL_SLOTS,
  POSTED_REQUESTS,
  restoreError,
  type WorkerInit,
  type WorkerReply,
  type WorkerRequest,
} from "./pglite-worker-messages.js";

/** PGlite's stand-ins for autovacuum and the checkpointer: see `PGliteDatabaseOptions`. Both on by default. */
export interface PGliteWorkerDatabaseOptions extends PGliteWorkerEvents, PGliteMaintenanceOptions {
  /** An in-memory database's starting content (`OpenDatabaseOptions.loadDataDir`). */
  loadDataDir?: Blob | undefined;
}

/** What happens to the embedded database's worker thread, for the application's log. */
export interface PGliteWorkerEvents {
  /**
   * The worker thread died (PGlite's WASM aborted, say). Statements fail from then on, as in a database
   * outage, until a new worker has opened the data directory again: it is restarted after 0.1 s, then
   * ever more slowly (up to every 5 s) while it cannot open or keeps dying within 10 s of opening; each
   * restart that fails is reported here too. An in-memory database (`memory://`) is not restarted (its
   * data went with the thread): it fails from then on. Whatever the callbacks throw is ignored.
   */
  onWorkerLost?: (error: Error) => void;
  /** A new worker opened the data directory after one was lost: statements run again. */
  onWorkerRestarted?: () => void;
}

/** How long a closed worker may take to end on its own before it is terminated. */
const CLOSE_GRACE_MS = 5_000;

/**
 * The wait before restarting a worker that died, doubled after each restart that fails (or whose worker
 * died again within `STABLE_AFTER_MS`), up to the last.
 */
const RESTART_DELAYS_MS = [100, 200, 400, 800, 1_600, 3_200, 5_000];
const STABLE_AFTER_MS = 10_000;

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Listener {
  channel: string;
  onPayload(payload: string): void;
  onLost?(): void;
  onReconnect?(): void;
  /** The id of the `listen` request that opened it in the current worker (it names its NOTIFYs so). */
  id?: number;
}

/** One worker thread and what is shared with it; a worker that dies is replaced by a new thread. */
interface WorkerThread {
  worker: Worker;
  control: Int32Array;
  requests: MessagePort;
  replies: MessagePort;
  /** Opened (or failed to open: rejects). */
  ready: Promise<void>;
  /** Resolves once the thread has ended, however it ended. */
  exited: Promise<void>;
}

/**
 * Opens PGlite in a worker thread and returns a Database over it. PostgreSQL in WASM then executes on a
 * core of its own while the calling thread serves requests: no statement holds up the server for the
 * time it runs. Every answer comes back through the calling thread's event loop (the worker, asleep in
 * `Atomics.wait` between requests, wakes in tens of microseconds). The data directory is not locked here
 * (`openDatabase` does that).
 */
export async function openPGliteWorkerDatabase(
  dataDir: string,
  options: PGliteWorkerDatabaseOptions = {},
): Promise<Database> {
  const connection = new PGliteWorkerConnection(dataDir, options);
  await connection.ready;
  const maintenance = startPGliteMaintenance(
    {
      query: (sql, params) => connection.query(sql, params),
      exec: (sql) => connection.exec(sql),
    },
    options,
    () => !connection.closed,
  );
  const database: Database = {
    kind: "pglite",
    inWorker: true,
    query: (sql, params, queryOptions) => connection.query(sql, params, queryOptions),
    exec: (sql) => connection.exec(sql),
    transaction: (fn) => connection.transaction(fn),
    listen: (channel, onPayload, listenOptions) => connection.listen(channel, onPayload, listenOptions),
    async notify(channel, payload) {
      await connection.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await maintenance.stop();
      await connection.close();
    },
  };
  connections.set(database, connection);
  return database;
}

/** For tests: each open database's connection, to end its worker as a crash would (`endWorkerOf`). */
const connections = new WeakMap<Database, PGliteWorkerConnection>();

/**
 * Ends the worker thread of a database opened by `openPGliteWorkerDatabase` from outside, as a crash of
 * PGlite's WASM would end it. Internal: tests of what callers see when that happens.
 */
export async function endWorkerOf(database: Database): Promise<void> {
  const connection = connections.get(database);
  if (!connection) throw new TypeError("not a database opened by openPGliteWorkerDatabase");
  await connection.endWorker();
}

class PGliteWorkerConnection {
  /** The first worker has opened the data directory (rejects if it could not). */
  readonly ready: Promise<void>;
  closed = false;
  private thread: WorkerThread;
  private readonly pending = new Map<number, Pending>();
  /** Every listener not stopped, listening in the current worker or to listen again in the next. */
  private readonly listeners = new Set<Listener>();
  /** The listeners listening in the current worker, by id. */
  private readonly listening = new Map<number, Listener>();
  private nextId = 1;
  /** Why the worker cannot answer now (it died; a new one is on its way unless closed): requests fail with it. */
  private failure: Error | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private failedRestarts = 0;
  /**
   * When the current worker opened the data directory; undefined until the first one has (a worker lost
   * before that is a failed open, not restarted).
   */
  private openedAt: number | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly options: PGliteWorkerDatabaseOptions,
  ) {
    this.thread = this.spawn();
    this.ready = this.thread.ready.then(() => {
      this.openedAt = performance.now();
    });
  }

  /** Starts a worker thread that opens the data directory; `ready` settles when it has (or could not). */
  private spawn(): WorkerThread {
    const control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
    const requests = new MessageChannel();
    const replies = new MessageChannel();
    const init: WorkerInit = {
      dataDir: this.dataDir,
      ...(this.options.loadDataDir ? { loadDataDir: this.options.loadDataDir } : {}),
      control: control.buffer as SharedArrayBuffer,
      requests: requests.port2,
      replies: replies.port2,
    };
    const worker = new Worker(WORKER_ENTRY_URL, {
      workerData: init,
      transferList: [requests.port2, replies.port2],
      // Not the process's flags: some are refused in a worker (`--input-type`), none concern it.
      execArgv: [],
    });
    let opened!: (error?: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      opened = (error) => (error ? reject(error) : resolve());
    });
    const thread: WorkerThread = {
      worker,
      control,
      requests: requests.port1,
      replies: replies.port1,
      ready,
      exited: new Promise<void>((resolve) => worker.once("exit", () => resolve())),
    };
    const onMessage = (message: WorkerReply) => {
      if (!("ready" in message)) return this.onReply(message);
      // Kept alive only while it has requests to answer (see `send`): an idle database keeps no process
      // running, as PGlite on the calling thread does not.
      if (this.pending.size === 0) worker.unref();
      // PGlite could not open (a damaged data directory …): the worker serves nothing, so it goes now.
      if (message.error) void worker.terminate();
      opened(message.error && restoreError(message.error));
    };
    thread.replies.on("message", onMessage);
    const died = (error: Error) => {
      opened(error); // a worker that dies while opening did not open
      if (this.thread === thread) this.lost(error);
    };
    worker.on("error", (error) =>
      died(new Error(`the embedded database's worker failed: ${error.message}`, { cause: error })),
    );
    worker.on("exit", (code) => {
      // A reply the thread posted just before it ended (PGlite's own error when it cannot open) may still
      // wait on the port, behind this event: it is read first, so it is what the open fails with.
      for (let queued = receiveMessageOnPort(thread.replies); queued; queued = receiveMessageOnPort(thread.replies)) {
        onMessage(queued.message as WorkerReply);
      }
      died(new Error(`the embedded database's worker exited (code ${code})`));
    });
    thread.replies.unref();
    return thread;
  }

  /** The current worker died: what it was asked fails, and a new one is started unless there is no point. */
  private lost(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    this.listening.clear();
    // Before the first open, or while closing, nobody waits for a new one.
    if (this.openedAt === undefined || this.closing) {
      this.closed = true;
      return;
    }
    // In memory, the data went with the thread: a new worker would answer from an empty database.
    if (this.dataDir.startsWith("memory://")) {
      this.closed = true;
      safely(() => this.options.onWorkerLost?.(error));
      return;
    }
    // A worker that dies soon after it opened (a statement that kills it, asked again and again) is
    // restarted ever more slowly, as one that cannot open is.
    const upMs = performance.now() - this.openedAt;
    this.failedRestarts = upMs >= STABLE_AFTER_MS ? 0 : this.failedRestarts + 1;
    for (const listener of this.listeners) listener.id = undefined;
    this.scheduleRestart();
    // Told once the state is settled; a callback that throws is its own problem, not the restart's.
    safely(() => this.options.onWorkerLost?.(error));
    for (const listener of this.listeners) safely(listener.onLost);
  }

  private scheduleRestart(): void {
    const delay = RESTART_DELAYS_MS[Math.min(this.failedRestarts, RESTART_DELAYS_MS.length - 1)];
    this.restartTimer = setTimeout(() => void this.restart(), delay);
    this.restartTimer.unref();
  }

  /** Opens the data directory in a new worker; once it is open, listeners listen again and requests go. */
  private async restart(): Promise<void> {
    this.restartTimer = undefined;
    // The dead thread is gone for good before another opens its data directory.
    await this.thread.exited;
    if (this.closing) return;
    let thread: WorkerThread;
    try {
      thread = this.spawn();
      this.thread = thread;
      await thread.ready;
    } catch (error) {
      if (this.closing) return;
      this.failedRestarts++;
      this.failure = new Error(`the embedded database's worker could not be restarted: ${(error as Error).message}`, {
        cause: error,
      });
      this.scheduleRestart();
      safely(() => this.options.onWorkerLost?.(this.failure as Error));
      return;
    }
    this.openedAt = performance.now();
    this.failure = undefined; // before the close, if one is waiting, so that it closes PGlite properly
    if (this.closing) return;
    // LISTEN again in the new worker. One that fails because this worker died too listens again after the
    // next restart (a LISTEN on a channel that was valid once does not fail otherwise).
    const listeners = [...this.listeners];
    await Promise.all(listeners.map((listener) => this.startListening(listener).catch(() => undefined)));
    if (this.thread !== thread || this.failure || this.closing) return; // died again meanwhile
    safely(this.options.onWorkerRestarted);
    for (const listener of listeners) {
      if (listener.id !== undefined && this.listeners.has(listener)) safely(listener.onReconnect);
    }
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
    return this.send(request) as Promise<QueryResult<Row>>;
  }

  async exec(sql: string, tx?: number): Promise<void> {
    await this.send(tx === undefined ? { op: "exec", sql } : { op: "exec", sql, tx });
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const tx = (await this.send({ op: "begin" })) as number;
    return this.runTransaction(tx, fn);
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
      await this.send({ op: "end", tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.send({ op: "end", tx, commit: true });
    return value;
  }

  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    options: { onLost?: () => void; onReconnect?: () => void } = {},
  ): Promise<() => Promise<void>> {
    quoteChannel(channel); // validates before the worker sees it
    const listener: Listener = { channel, onPayload, onLost: options.onLost, onReconnect: options.onReconnect };
    await this.startListening(listener);
    this.listeners.add(listener);
    let stopped = false;
    return async () => {
      if (stopped || this.closed) return;
      stopped = true;
      this.listeners.delete(listener);
      const id = listener.id;
      if (id === undefined) return;
      this.listening.delete(id);
      // Best effort, as on PostgreSQL: a worker that died took its LISTEN with it.
      await this.send({ op: "unlisten", listener: id }).catch(() => undefined);
    };
  }

  /** LISTENs in the current worker; its NOTIFYs then come named by the listen request's id. */
  private async startListening(listener: Listener): Promise<void> {
    const id = this.nextId; // the id `send` gives the listen request
    this.listening.set(id, listener);
    listener.id = id;
    try {
      await this.send({ op: "listen", channel: listener.channel });
    } catch (error) {
      this.listening.delete(id);
      listener.id = undefined;
      throw error;
    }
  }

  /** Ends the current worker from outside, as a crash would (see `endWorkerOf`). */
  async endWorker(): Promise<void> {
    const { worker, exited } = this.thread;
    await worker.terminate();
    await exited;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.restartTimer);
      const { worker, exited, ready } = this.thread;
      // Once PGlite has closed, the worker's thread ends by itself; it is terminated if it has not within
      // the grace period (a statement that does not end, a worker that hangs).
      const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
      try {
        // A restart under way finishes opening first (or fails to), so that it is closed, not cut off.
        await ready.catch(() => undefined);
        if (!this.failure) await this.send({ op: "close" }).catch(() => undefined);
        else void worker.terminate();
        this.closed = true;
        worker.ref(); // until it has gone, as a close awaited by its caller should
        await exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.closing;
  }

  private send(request: Request): Promise<unknown> {
    // While closing, only what ends the work under way still goes: an open transaction's end, the close.
    if (this.closing && request.op !== "close" && request.op !== "end") {
      return Promise.reject(new Error("the embedded database is closed"));
    }
    if (this.failure) return Promise.reject(this.failure);
    const { worker, requests, control } = this.thread;
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    try {
      requests.postMessage({ ...request, id });
    } catch (error) {
      // A parameter structured clone refuses (a function, a symbol): this statement fails, nothing else.
      this.pending.delete(id);
      return Promise.reject(error);
    }
    Atomics.add(control, POSTED_REQUESTS, 1);
    Atomics.notify(control, POSTED_REQUESTS);
    if (this.pending.size === 1) worker.ref();
    // The answer comes through the event loop, never with this thread asleep for it: under load the
    // thread has other requests to serve meanwhile.
    return answered;
  }

  private onReply(message: WorkerReply): void {
    if ("ready" in message) return;
    if ("listener" in message) {
      const listener = this.listening.get(message.listener);
      // Called like a reply's continuation: never from inside another caller's `query`.
      if (listener) queueMicrotask(() => listener.onPayload(message.payload));
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.thread.worker.unref();
    if (message.ok) pending.resolve(message.value);
    else pending.reject(restoreError(message.error));
  }
}
