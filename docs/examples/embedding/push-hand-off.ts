import { MessageChannel } from "node:worker_threads";
import type { HandedPushDelivery, PushDeliveryQueue } from "@a2a-partner/a2a-core";
import { createPostgresStores, PostgresPushDeliveryQueue } from "@a2a-partner/postgres-store";
import { db } from "./database.ts";

// The two threads' ends, in one process here: the worker's parentPort and the handler thread's Worker.
const { port1: parentPort, port2: worker } = new MessageChannel();
const stores = createPostgresStores(db); // the handler's thread
const queue = new PostgresPushDeliveryQueue(db); // the worker's (over a pool of its own)

// #region snippet
// Worker: a queue whose handOff is served by the handler's thread.
let handedTo: ((deliveries: HandedPushDelivery[]) => void) | undefined;
const deliveries: PushDeliveryQueue = {
  claim: (...a) => queue.claim(...a),
  complete: (...a) => queue.complete(...a),
  retry: (...a) => queue.retry(...a),
  release: (...a) => queue.release(...a),
  giveUp: (...a) => queue.giveUp(...a),
  nextDueAt: () => queue.nextDueAt(),
  watch: (listener) => queue.watch(listener),
  handOff(owner, leaseMs, listener) {
    handedTo = listener;
    parentPort.postMessage({ kind: "hand-off", owner, leaseMs });
    return () => parentPort.postMessage({ kind: "hand-off-stop" });
  },
};
parentPort.on("message", (m) => m.kind === "handed" && handedTo?.(m.deliveries));

// Handler's thread: on "hand-off", register; on "hand-off-stop" (or the worker's exit), stop.
let stop: (() => void) | undefined;
worker.on("message", (m) => {
  if (m.kind === "hand-off") {
    stop = stores.push.deliveries.handOff?.(m.owner, m.leaseMs, (handed) => {
      worker.postMessage({ kind: "handed", deliveries: handed });
    });
  }
  if (m.kind === "hand-off-stop") stop?.();
});

// #endregion snippet

export { deliveries, parentPort, worker };
