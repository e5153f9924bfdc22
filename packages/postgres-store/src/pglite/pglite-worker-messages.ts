import type { MessagePort } from "node:worker_threads";

/**
 * What the thread that owns a PGlite worker and the worker say to each other. Messages travel over two
 * MessagePorts (structured clone keeps `Date`, `bigint`, `Uint8Array` and parsed JSON as they are); the
 * owner also counts the requests it posted in shared memory, so the worker can sleep in `Atomics.wait`
 * until one arrives and take it with `receiveMessageOnPort`, without a turn of its event loop. Replies
 * reach the owner through its event loop.
 */
export interface WorkerInit {
  /** PGlite's data directory or URL (`memory://`). */
  dataDir: string;
  /** An in-memory database's starting content (a `dumpDataDir()` tarball) instead of initdb. */
  loadDataDir?: Blob;
  /** One Int32 counter, `POSTED_REQUESTS`. */
  control: SharedArrayBuffer;
  requests: MessagePort;
  replies: MessagePort;
}

export const POSTED_REQUESTS = 0;
export const CONTROL_SLOTS = 1;

/** `tx`: the statement runs inside that open transaction (the id of the `begin` that opened it). */
export type WorkerRequest =
  | { id: number; op: "query"; sql: string; params: readonly unknown[]; name?: string; tx?: number }
  | { id: number; op: "exec"; sql: string; tx?: number }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "listen"; channel: string }
  | { id: number; op: "unlisten"; listener: number }
  | { id: number; op: "close" };

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: TransferredError }
  /** A NOTIFY for the listener opened by the `listen` request of that id. */
  | { listener: number; payload: string }
  /** PGlite is open (or could not be opened: `error`). */
  | { ready: true; error?: TransferredError };

/**
 * An error as data: structured clone keeps an Error's message but drops the fields callers act on
 * (`code`, `constraint`, `detail` … of a database error), so they travel as plain own properties.
 */
export interface TransferredError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, unknown>;
}

export function transferError(error: unknown): TransferredError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    // Plain values only (a database error's fields are strings and numbers), so the reply always clones.
    if (value === null || ["string", "number", "boolean", "bigint"].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields };
}

export function restoreError(transferred: TransferredError): Error {
  const error = new Error(transferred.message);
  Object.assign(error, transferred.fields);
  if (transferred.name !== "Error")
    Object.defineProperty(error, "name", { value: transferred.name, configurable: true });
  // The worker's stack says where PostgreSQL's answer was parsed; the caller's own is the useful one, so
  // both are kept.
  if (transferred.stack) error.stack = `${error.stack}\n    --- in the PGlite worker ---\n${transferred.stack}`;
  return error;
}
