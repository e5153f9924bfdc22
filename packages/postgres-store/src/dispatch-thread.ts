// The /dispatch-thread entry of @a2a-partner/postgres-store: the push dispatcher on a worker thread of its
// own (Node's worker_threads, PostgreSQL only). An entry apart so that the index never loads it.

// The index's types these name, for a reader of this entry alone.
export type { Database } from "./database.js";
export type { PostgresPushDeliveryQueue } from "./push/postgres-push-delivery-queue.js";
export type { PushDispatchThreadOptions } from "./push-thread/push-dispatch-thread.js";
export { PushDispatchThread } from "./push-thread/push-dispatch-thread.js";
export { type PushDispatchWorkerSetup, runPushDispatchWorker } from "./push-thread/push-dispatch-worker.js";
