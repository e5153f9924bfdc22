import { randomUUID } from "node:crypto";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { type Replica, replicaAvailable, startReplica } from "@a2a-partner/test-support/replica";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Database, openDatabase, type QueryOptions, ReplicaFence } from "../src/index.js";

// ReplicaFence on a real streaming replica: a replica answer is used only when it shows every change the
// process was told of, so a revocation holds at once however far the replica lags, and reads that find
// the replica caught up never touch the primary.
const reachable = (await postgresAvailable()) && replicaAvailable();

/**
 * A caught-up replica is trusted once its snapshot's xmin passes the fence's floor. Transaction ids are
 * the cluster's, so a transaction another suite keeps open on the same PostgreSQL holds the xmin back
 * (by design: the fence cannot tell it from one of ours) for as long as it stays open.
 */
const UNTIL_TRUSTED = { timeout: 20_000, interval: 50 };
/** A NOTIFY reaches the process milliseconds after its commit; seconds on a busy host. */
const UNTIL_HEARD = { timeout: 5_000, interval: 20 };

describe.skipIf(!reachable)("ReplicaFence on a real streaming replica", () => {
  const schema = `fence_test_${randomUUID().replaceAll("-", "")}`;
  const channel = `fence_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  let replica: Replica;
  let admin: Database;
  let db: Database;
  let fence: ReplicaFence;
  /** Statements sent to the primary through `db` (the fence's baseline included). */
  let onPrimary: string[] = [];

  beforeAll(async () => {
    admin = await openDatabase({ url: POSTGRES_URL });
    await admin.exec(`create schema ${schema};
      create table ${schema}.grants (token text primary key, revoked boolean not null default false);
      create function ${schema}.announce() returns trigger language plpgsql as $$
      begin perform pg_notify('${channel}', pg_current_xact_id()::text); return null; end $$;
      create trigger grants_announce after insert or update or delete or truncate on ${schema}.grants
        for each statement execute function ${schema}.announce();`);
    replica = await startReplica(POSTGRES_URL);
    const opened = await openDatabase({ url: POSTGRES_URL, readUrl: replica.url("test"), pool: { max: 2 } });
    db = {
      ...opened,
      query: (sql: string, params?: readonly unknown[], options?: QueryOptions) => {
        onPrimary.push(sql);
        return opened.query(sql, params, options);
      },
      close: () => opened.close(),
    };
    fence = new ReplicaFence(db, { channel });
    await fence.start();
  });

  afterAll(async () => {
    await fence?.close();
    await db?.close();
    await replica?.stop();
    await admin?.exec(`drop schema if exists ${schema} cascade`);
    await admin?.close();
  });

  /** The grant as the fenced replica read sees it: undefined when the replica's answer is not trusted. */
  function onReplica(token: string) {
    return fence.read(async (replica) => {
      const { rows } = await replica.query<{ revoked: boolean }>(
        `select revoked from ${schema}.grants where token = $1`,
        [token],
      );
      return rows[0] ?? null;
    });
  }

  /** Once the replica caught up and the fence answers from it (`token`'s live grant), its replay paused. */
  async function pausedOnceTrusted(token: string): Promise<void> {
    await replica.catchUp();
    await vi.waitFor(async () => expect(await onReplica(token)).toEqual({ revoked: false }), UNTIL_TRUSTED);
    await replica.pauseReplay();
  }

  it("answers from a caught-up replica without a statement on the primary", async () => {
    await admin.query(`insert into ${schema}.grants (token) values ('a'), ('b')`);
    await replica.catchUp();
    onPrimary = [];
    await vi.waitFor(async () => expect(await onReplica("a")).toEqual({ revoked: false }), UNTIL_TRUSTED);
    expect(await onReplica("nobody")).toBeNull(); // an empty answer is an answer too
    expect(onPrimary).toEqual([]);
  });

  it("stops trusting a replica that stopped replaying once a change is announced, and trusts it again once it shows it", async () => {
    await pausedOnceTrusted("a");
    try {
      await admin.query(`update ${schema}.grants set revoked = true where token = 'a'`);
      // The notification reaches the process milliseconds after the commit; from then on the paused
      // replica (which still has the grant live) is not used, for any row of the table.
      await vi.waitFor(async () => expect(await onReplica("a")).toBeUndefined(), UNTIL_HEARD);
      for (let i = 0; i < 5; i++) {
        expect(await onReplica("a")).toBeUndefined();
        expect(await onReplica("b")).toBeUndefined();
      }
      // What the paused replica would have said: the revoked grant, live.
      const stale = await db.replica?.query<{ revoked: boolean }>(
        `select revoked from ${schema}.grants where token = 'a'`,
      );
      expect(stale?.rows[0]?.revoked).toBe(false);
    } finally {
      await replica.resumeReplay();
    }
    await replica.catchUp();
    onPrimary = [];
    expect(await onReplica("a")).toEqual({ revoked: true });
    expect(onPrimary).toEqual([]);
  });

  it("never trusts a replica read that ran before an announcement it does not show", async () => {
    await pausedOnceTrusted("b");
    try {
      let announced = false;
      const stop = await db.listen(channel, () => {
        announced = true;
      });
      // The read's statement runs on the paused replica; the change commits and is heard before the
      // read's answer is judged.
      const answer = fence.read(async (replica) => {
        const { rows } = await replica.query<{ revoked: boolean }>(
          `select revoked from ${schema}.grants where token = 'b'`,
        );
        await admin.query(`update ${schema}.grants set revoked = true where token = 'b'`);
        await vi.waitFor(() => expect(announced).toBe(true), UNTIL_HEARD);
        return rows[0];
      });
      expect(await answer).toBeUndefined();
      await stop();
    } finally {
      await replica.resumeReplay();
    }
  });
});
