import { afterAll, beforeAll } from "vitest";
import type { SeedResult } from "../../src/seed.ts";
import {
  type ProcessStore,
  type ServerProcess,
  seedWithCli,
  startServerProcess,
  stopAllServerProcesses,
} from "./server-process.ts";

/** A store of a describe block's own, seeded through the CLI (unless asked not to). */
export interface StoreSuite<S extends ProcessStore> {
  readonly store: S;
  /** What the seed made; only when the suite seeded the store. */
  readonly seeded: SeedResult;
}

/**
 * Call at the top of a describe block: before its tests a fresh store is created and (with `seed`, the
 * default) seeded through the CLI, before any server holds it, so the CLI opens a PGlite directory itself;
 * after them every server process stops and the store is dropped.
 */
export function storePerSuite<S extends ProcessStore>(
  createStore: () => Promise<S>,
  { seed = true }: { seed?: boolean } = {},
): StoreSuite<S> {
  let store: S | undefined;
  let seeded: SeedResult | undefined;
  beforeAll(async () => {
    store = await createStore();
    if (seed) seeded = await seedWithCli(store.env);
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await store?.drop();
  });
  return {
    get store() {
      return ready(store);
    },
    get seeded() {
      return ready(seeded);
    },
  };
}

/** A store of a describe block's own, and one server process on it. */
export interface ServerSuite<S extends ProcessStore> extends StoreSuite<S> {
  readonly server: ServerProcess;
}

/**
 * `storePerSuite`, then one server process on the store with `env` added to the store's; it stops after
 * the block's tests with every other server process.
 */
export function serverProcessPerSuite<S extends ProcessStore>(
  createStore: () => Promise<S>,
  options: { seed?: boolean; env?: Record<string, string> } = {},
): ServerSuite<S> {
  const suite = storePerSuite(createStore, options);
  let server: ServerProcess | undefined;
  // Runs after storePerSuite's beforeAll: vitest runs a block's beforeAll hooks in the order they were added.
  beforeAll(async () => {
    server = await startServerProcess({ ...suite.store.env, ...options.env });
  });
  return {
    get store() {
      return suite.store;
    },
    get seeded() {
      return suite.seeded;
    },
    get server() {
      return ready(server);
    },
  };
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the suite is set up in beforeAll (and `seeded` only when it seeds)");
  return value;
}
