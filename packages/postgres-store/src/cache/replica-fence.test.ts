import { describe, expect, it } from "vitest";
import type { Database, Queryable } from "../database.js";
import { ReplicaFence } from "./replica-fence.js";

/**
 * A primary whose snapshot's xmax is `primaryXmax`, a replica whose statements see `replicaXmin`, and a
 * LISTEN that the test can lose, restore and notify.
 */
function fakeDatabases() {
  const state = { primaryXmax: 100n, replicaXmin: 100n };
  let handlers: { payload: (p: string) => void; lost?: () => void; reconnect?: () => void } | undefined;
  const replica: Queryable = {
    async query<Row>() {
      const rows = [{ __fence_xmin: String(state.replicaXmin), __fence_row: "1", token: "t" }];
      return { rows: rows as Row[], rowCount: 1 };
    },
    exec: async () => undefined,
  };
  const db = {
    replica,
    async query<Row>() {
      return { rows: [{ xmax: String(state.primaryXmax) }] as Row[], rowCount: 1 };
    },
    async listen(
      _channel: string,
      payload: (p: string) => void,
      options?: { onLost?: () => void; onReconnect?: () => void },
    ) {
      handlers = { payload, ...(options?.onLost ? { lost: options.onLost } : {}), reconnect: options?.onReconnect };
      return async () => undefined;
    },
  } as unknown as Database;
  return { db, state, notify: (p: string) => handlers?.payload(p), listeners: () => handlers };
}

const readToken = (fence: ReplicaFence) =>
  fence.read(async (replica) => (await replica.query<{ token: string }>("select token from t")).rows);

describe("ReplicaFence", () => {
  it("trusts the replica once it shows what the primary had begun when LISTEN started, and each change announced since", async () => {
    const { db, state, notify } = fakeDatabases();
    const fence = new ReplicaFence(db, { channel: "access_changes" });
    state.replicaXmin = 99n; // a transaction the primary had begun is still running on the replica
    await fence.start();
    expect(await readToken(fence)).toBeUndefined();
    state.replicaXmin = 100n;
    expect(await readToken(fence)).toEqual([{ token: "t" }]); // the helper columns are gone
    notify("150"); // transaction 150 changed a watched table
    expect(await readToken(fence)).toBeUndefined();
    state.replicaXmin = 151n;
    expect(await readToken(fence)).toEqual([{ token: "t" }]);
    await fence.close();
    expect(await readToken(fence)).toBeUndefined();
  });

  it("trusts nothing while LISTEN is lost, and only a new baseline after it is back", async () => {
    const { db, state, listeners } = fakeDatabases();
    const fence = new ReplicaFence(db, { channel: "access_changes" });
    await fence.start();
    expect(await readToken(fence)).toBeDefined();
    listeners()?.lost?.();
    expect(await readToken(fence)).toBeUndefined();
    state.primaryXmax = 300n; // what committed while nobody listened
    listeners()?.reconnect?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await readToken(fence)).toBeUndefined();
    state.replicaXmin = 300n;
    expect(await readToken(fence)).toBeDefined();
    await fence.close();
  });

  it("answers nothing without a replica", async () => {
    const { db } = fakeDatabases();
    const fence = new ReplicaFence({ ...db, replica: undefined } as Database, { channel: "access_changes" });
    await fence.start();
    expect(await readToken(fence)).toBeUndefined();
  });
});
