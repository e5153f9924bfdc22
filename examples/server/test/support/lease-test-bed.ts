import type { SeedResult } from "../../src/seed.ts";
import { storePerSuite } from "./process-suite.ts";
import { startParams } from "./rpc.ts";
import { openStream, type ProcessStore, type ServerProcess, startServerProcess } from "./server-process.ts";

/** Robot steps slow enough to act between them, and a lease that lapses within a test. */
export const STEP_MS = 500;
export const LEASE_MS = 1500;
/** The handler's default recovery interval: half the lease. */
export const SWEEP_MS = LEASE_MS / 2;

/** A seeded store for real server processes with short leases, and the requests every such test sends. */
export interface LeaseTestBed<S extends ProcessStore> {
  readonly store: S;
  /** The seeded workspace's partner token. */
  readonly token: string;
  /** What the CLI seeded (the workspace, its user's token). */
  readonly seeded: SeedResult;
  /** A server process on the store, with STEP_MS robots and LEASE_MS leases (`env` adds or overrides). */
  serve(env?: Record<string, string>): Promise<ServerProcess>;
  start(server: ServerProcess, text: string, messageId?: string): ReturnType<typeof openStream>;
  subscribe(server: ServerProcess, taskId: string, lastEventId?: string): ReturnType<typeof openStream>;
}

/**
 * Call at the top of a describe block: before its tests a fresh store is created and seeded through the
 * CLI; after them every server process stops and the store is dropped (see `storePerSuite`).
 */
export function leaseTestBed<S extends ProcessStore>(createStore: () => Promise<S>): LeaseTestBed<S> {
  const suite = storePerSuite(createStore);
  return {
    get store() {
      return suite.store;
    },
    get token() {
      return suite.seeded.partnerToken;
    },
    get seeded() {
      return suite.seeded;
    },
    serve: (env = {}) =>
      startServerProcess({
        ...suite.store.env,
        ROBOT_STEP_MS: String(STEP_MS),
        TASK_LEASE_MS: String(LEASE_MS),
        ...env,
      }),
    start: (server, text, messageId = crypto.randomUUID()) =>
      openStream(server.a2aUrl, suite.seeded.partnerToken, "SendStreamingMessage", startParams(text, messageId)),
    subscribe: (server, taskId, lastEventId) =>
      openStream(
        server.a2aUrl,
        suite.seeded.partnerToken,
        "SubscribeToTask",
        { id: taskId },
        lastEventId ? { "Last-Event-ID": lastEventId } : {},
      ),
  };
}
