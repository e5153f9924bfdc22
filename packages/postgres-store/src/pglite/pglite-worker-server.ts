import { setImmediate as nextTurn } from "node:timers/promises";
import { receiveMessageOnPort } from "node:worker_threads";
import type { Database, Queryable } from "../database.js";
import { pgliteConnection } from "./pglite-connection.js";
import {
  POSTED_REQUESTS,
  transferError,
  type WorkerInit,
  type WorkerReply,
  type WorkerRequest,
} from "./pglite-worker-messages.js";

/** While a request is unfinished the thread wakes this often to let the event loop run (see `serve`). */
const POLL_WHILE_BUSY_MS = 1;

/**
 * Idle, it still wakes now and then to turn its event loop, so that whatever the runtime asks of the
 * thread (its termination when the process exits without closing the database) never meets a thread
 * asleep for good.
 */
const IDLE_WAKE_MS = 1_000;

/**
 * How long the thread stays awake, watching for the next request, after its last one. Statements come in
 * runs (a task's events, the next task's start); a thread woken from sleep takes tens of microseconds to
 * wake and then runs PGlite with cold caches: on the 2-vCPU development machine an insert asked for
 * 1.5 ms after the previous one took 0.28–0.52 ms (p90 ~1.4) in a worker that had slept and 0.17–0.29 ms
 * in one kept awake. Only while requests come in runs (see the loop): a trickle of statements would
 * pay this much CPU for each.
 */
const STAY_AWAKE_MS = 2;

/** Thrown inside a transaction's function to roll it back on the owner's word. */
const ROLLBACK = Symbol("rollback");

interface OpenTransaction {
  tx: Queryable;
  /** Ends the transaction: true commits, false rolls back. */
  finish(commit: boolean): void;
  /** The `end` request to answer once the transaction has ended. */
  endId?: number;
}

/**
 * The worker thread's side: opens PGlite, then serves the owner's requests until it asks to close. Each
 * request runs through the same `pgliteDatabase` the owner would use on its own thread (named statements,
 * PGlite's locks), so nothing about a statement changes but the thread it runs on.
 */
export async function serveDatabase(init: WorkerInit): Promise<void> {
  const control = new Int32Array(init.control);
  /** Replies posted so far: the loop below stays awake after answering something (see there). */
  let repliesPosted = 0;
  const reply = (message: WorkerReply) => {
    try {
      init.replies.postMessage(message);
    } catch (error) {
      // A value structured clone refuses (it should not happen with PGlite's parsed rows): the request
      // fails with that error rather than never being answered.
      if (!("id" in message)) throw error;
      init.replies.postMessage({ id: message.id, ok: false, error: transferError(error) } satisfies WorkerReply);
    }
    repliesPosted++;
  };

  let db: Database;
  try {
    const { PGlite } = await import("@electric-sql/pglite");
    // The owner runs the autovacuum and checkpoint stand-ins (they need timers, this thread sleeps between
    // requests, and their statements must take their turn with everyone else's).
    const instance = await PGlite.create(init.dataDir, init.loadDataDir ? { loadDataDir: init.loadDataDir } : {});
    db = pgliteConnection(instance, true);
  } catch (error) {
    reply({ ready: true, error: transferError(error) });
    return;
  }
  reply({ ready: true });

  const transactions = new Map<number, OpenTransaction>();
  const listeners = new Map<number, () => Promise<void>>();
  let unfinished = 0;
  let closing = false;

  // Requests outside a transaction reach PGlite one after another, in the order they were asked for
  // (PGlite's locks alone would let a statement that first loads something overtake the one before it);
  // a transaction's own statements go straight to it, or they would wait behind requests that wait for it.
  let lane: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(step: () => Promise<T>): Promise<T> => {
    const next = lane.then(step, step);
    lane = next.catch(() => undefined);
    return next;
  };

  const answer = (id: number, run: () => Promise<unknown>, inTransaction = false) => {
    unfinished++;
    (inTransaction ? run() : inOrder(run))
      .then(
        (value) => reply({ id, ok: true, value }),
        (error: unknown) => reply({ id, ok: false, error: transferError(error) }),
      )
      .finally(() => unfinished--);
  };
  const queryableFor = (tx: number | undefined): Queryable => {
    if (tx === undefined) return db;
    const open = transactions.get(tx);
    if (!open) throw new Error(`no open transaction ${tx} in the PGlite worker`);
    return open.tx;
  };

  /** Resolves once the transaction has begun or failed to: the next request in order may go then. */
  const begin = (id: number) =>
    new Promise<void>((settled) => {
      beginTransaction(id, settled);
    });
  const beginTransaction = (id: number, settled: () => void) => {
    unfinished++;
    let begun = false;
    let finish!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => {
      finish = resolve;
    });
    db.transaction(async (tx) => {
      // Asked for before the close, begun after it was asked for: nobody will end it.
      if (closing) throw new Error("the embedded database is closed");
      transactions.set(id, { tx, finish });
      begun = true;
      settled();
      unfinished--; // from here on it waits for the owner's statements, not for this thread
      reply({ id, ok: true, value: id });
      if (!(await decided)) throw ROLLBACK;
    }).then(
      () => {
        const endId = transactions.get(id)?.endId;
        transactions.delete(id);
        if (endId !== undefined) reply({ id: endId, ok: true, value: undefined });
      },
      (error: unknown) => {
        const endId = transactions.get(id)?.endId;
        transactions.delete(id);
        if (!begun) {
          unfinished--;
          settled();
          reply({ id, ok: false, error: transferError(error) });
        } else if (endId !== undefined) {
          reply(
            error === ROLLBACK
              ? { id: endId, ok: true, value: undefined }
              : { id: endId, ok: false, error: transferError(error) },
          );
        }
      },
    );
  };

  const handle = (request: WorkerRequest) => {
    switch (request.op) {
      case "query":
        return answer(
          request.id,
          async () =>
            queryableFor(request.tx).query(
              request.sql,
              request.params,
              request.name ? { name: request.name } : undefined,
            ),
          request.tx !== undefined,
        );
      case "exec":
        return answer(request.id, async () => queryableFor(request.tx).exec(request.sql), request.tx !== undefined);
      case "begin":
        return void inOrder(() => begin(request.id));
      case "end": {
        const open = transactions.get(request.tx);
        if (!open) return reply({ id: request.id, ok: false, error: transferError(new Error("no such transaction")) });
        open.endId = request.id;
        return open.finish(request.commit);
      }
      case "listen":
        return answer(request.id, async () => {
          const stop = await db.listen(request.channel, (payload) => reply({ listener: request.id, payload }));
          listeners.set(request.id, stop);
        });
      case "unlisten":
        return answer(request.id, async () => {
          const stop = listeners.get(request.listener);
          listeners.delete(request.listener);
          await stop?.();
        });
      case "close":
        closing = true;
        return answer(request.id, async () => {
          for (const open of transactions.values()) open.finish(false);
          await db.close();
        });
    }
  };

  // Take every request posted so far, let them all run as far as they can (PGlite works synchronously
  // behind its promises, so one turn of the event loop finishes what does not wait for the owner), then
  // sleep until the owner posts again. Asleep in Atomics.wait, this thread wakes in microseconds; asleep in
  // its event loop it would take far longer, and every statement pays that wake.
  // When the thread last fell idle, and whether the request that ended its previous idle spell came soon
  // enough for staying awake to have caught it: statements that come in runs keep it awake, a trickle
  // (a robot's step every few hundred milliseconds) lets it sleep at once.
  let idleSince: number | undefined;
  let runsOfRequests = true;
  for (;;) {
    const seen = Atomics.load(control, POSTED_REQUESTS);
    const answeredBefore = repliesPosted;
    let received = false;
    for (let message = receiveMessageOnPort(init.requests); message; message = receiveMessageOnPort(init.requests)) {
      received = true;
      handle(message.message as WorkerRequest);
    }
    if (received && idleSince !== undefined) {
      runsOfRequests = performance.now() - idleSince <= STAY_AWAKE_MS;
      idleSince = undefined;
    }
    await nextTurn();
    if (closing && unfinished === 0) break;
    if (Atomics.load(control, POSTED_REQUESTS) !== seen) continue;
    // Awake a while after answering something when requests come in runs (the owner's next statement is
    // likely on its way), not while everything left waits for the owner (behind an open transaction).
    idleSince ??= performance.now();
    const justAnswered = repliesPosted !== answeredBefore;
    if (justAnswered && runsOfRequests && awaitChange(control, POSTED_REQUESTS, seen, STAY_AWAKE_MS)) continue;
    // Something unfinished that waits for neither the owner nor PGlite's synchronous work (a file call
    // PGlite makes asynchronously, say): wake often enough to let the event loop finish it.
    Atomics.wait(control, POSTED_REQUESTS, seen, unfinished === 0 ? IDLE_WAKE_MS : POLL_WHILE_BUSY_MS);
  }
  init.requests.close();
  init.replies.close();
}

/** Watches `slot` for up to `ms` without sleeping; whether it moved from `seen`. */
function awaitChange(control: Int32Array, slot: number, seen: number, ms: number): boolean {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (Atomics.load(control, slot) !== seen) return true;
  }
  return false;
}
