import { randomUUID } from "node:crypto";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { type Replica, replicaAvailable, startReplica } from "@a2a-partner/test-support/replica";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPostgresStores,
  type Database,
  migrate,
  openDatabase,
  type PostgresStores,
  type QueryOptions,
} from "../src/index.js";

// A real streaming replica of the local PostgreSQL (pg_basebackup into a second cluster on another port):
// GetTask of an ended task and ListTasks read there, and lag, a replica that stops replaying, or one that
// is gone never makes an answer stale or missing.
const reachable = (await postgresAvailable()) && replicaAvailable();

describe.skipIf(!reachable)("a read replica (openDatabase's readUrl)", () => {
  const schema = `replica_test_${randomUUID().replaceAll("-", "")}`;
  const { newTask, update, finished } = storeFixtures();
  const workspace = randomUUID();
  let replica: Replica;
  let admin: Database;
  let db: Database;
  /** Statements the stores sent to the primary (not to the replica). */
  let onPrimary: string[] = [];
  /** Fresh stores each time: nothing remembered about which tasks run. */
  let stores: () => PostgresStores;
  const opened: PostgresStores[] = [];

  beforeAll(async () => {
    admin = await openDatabase({ url: POSTGRES_URL });
    await admin.exec(`create schema ${schema}`);
    replica = await startReplica(POSTGRES_URL);
    const pool = { max: 4, options: `-c search_path=${schema}` };
    db = await openDatabase({ url: POSTGRES_URL, readUrl: replica.url("test"), pool });
    await migrate(db);
    const counted: Database = {
      ...db,
      query: (sql: string, params?: readonly unknown[], options?: QueryOptions) => {
        onPrimary.push(sql);
        return db.query(sql, params, options);
      },
    };
    stores = () => {
      const made = createPostgresStores(counted, { recheckIntervalMs: 60_000 });
      opened.push(made);
      return made;
    };
  });

  afterAll(async () => {
    for (const made of opened) await made.events.close();
    await db?.close();
    await replica?.stop();
    await admin?.exec(`drop schema if exists ${schema} cascade`);
    await admin?.close();
  });

  async function endedTask(
    writer: PostgresStores,
    state: "TASK_STATE_COMPLETED" | "TASK_STATE_FAILED" = "TASK_STATE_COMPLETED",
  ) {
    const { task } = await writer.tasks.create(newTask(workspace));
    await writer.events.append(task.id, update(task, 50));
    await writer.events.append(task.id, finished(task, state));
    return task.id;
  }

  it("answers GetTask of an ended task from the replica, without a statement on the primary", async () => {
    const taskId = await endedTask(stores());
    await replica.catchUp();
    const reader = stores();
    onPrimary = [];
    const record = await reader.tasks.get(workspace, taskId);
    expect(record?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(record?.lastSeq).toBe(3);
    expect(onPrimary).toEqual([]);
  });

  it("reads a running task on the primary: its newest state, never the replica's older one", async () => {
    const writer = stores();
    const { task } = await writer.tasks.create(newTask(workspace));
    await replica.catchUp();
    await replica.pauseReplay();
    try {
      await writer.events.append(task.id, update(task, 50));
      // The writer started it: straight to the primary.
      onPrimary = [];
      expect((await writer.tasks.get(workspace, task.id))?.lastSeq).toBe(2);
      expect(onPrimary).toHaveLength(1);
      // Another instance: the replica has it running, so the primary is asked and has seq 2.
      expect((await stores().tasks.get(workspace, task.id))?.lastSeq).toBe(2);
    } finally {
      await replica.resumeReplay();
    }
  });

  it("never serves a stale or missing ended task while the replica stops replaying", async () => {
    const writer = stores();
    const { task: running } = await writer.tasks.create(newTask(workspace));
    await replica.catchUp();
    await replica.pauseReplay();
    try {
      // Ended on the primary while the replica still has it running; another task exists only on the primary.
      await writer.events.append(running.id, finished(running, "TASK_STATE_CANCELED"));
      const unseen = await endedTask(writer, "TASK_STATE_FAILED");
      const reader = stores();
      expect((await reader.tasks.get(workspace, running.id))?.task.status.state).toBe("TASK_STATE_CANCELED");
      expect((await reader.tasks.get(workspace, unseen))?.task.status.state).toBe("TASK_STATE_FAILED");

      // ListTasks: the replica has not replayed what the primary has, so the primary answers.
      const page = await reader.tasks.list(workspace, { pageSize: 100 });
      const states = new Map(page.tasks.map((t) => [t.id, t.status.state]));
      expect(states.get(running.id)).toBe("TASK_STATE_CANCELED");
      expect(states.get(unseen)).toBe("TASK_STATE_FAILED");
      const onReplica = await openDatabase({ url: replica.url("test"), pool: { options: `-c search_path=${schema}` } });
      try {
        const { rows } = await onReplica.query<{ n: number }>("select count(*)::int as n from tasks where id = $1", [
          unseen,
        ]);
        expect(rows[0]?.n).toBe(0); // the replica really is behind
      } finally {
        await onReplica.close();
      }
    } finally {
      await replica.resumeReplay();
    }
  });

  it("answers ListTasks from a replica that has caught up: the primary only says where its WAL is", async () => {
    const ended = await endedTask(stores());
    const reader = stores();
    // Other test files write to the same cluster, so its WAL may move on between the catch-up and the
    // list (the replica is then rightly behind, and the primary answers): caught up again and retried.
    let page: Awaited<ReturnType<typeof reader.tasks.list>>;
    for (let attempt = 1; ; attempt++) {
      await replica.catchUp();
      onPrimary = [];
      page = await reader.tasks.list(workspace, { pageSize: 100 });
      if (onPrimary.length === 1 || attempt === 20) break;
    }
    expect(page.tasks.find((t) => t.id === ended)?.status.state).toBe("TASK_STATE_COMPLETED");
    expect(page.totalSize).toBe(page.tasks.length);
    expect(onPrimary).toEqual(["select pg_current_wal_insert_lsn()::text as lsn"]);
  });

  it("answers from the primary when the replica is gone", async () => {
    const ended = await endedTask(stores());
    await replica.stop();
    const reader = stores();
    expect((await reader.tasks.get(workspace, ended))?.task.status.state).toBe("TASK_STATE_COMPLETED");
    const page = await reader.tasks.list(workspace, { pageSize: 100 });
    expect(page.tasks.some((t) => t.id === ended)).toBe(true);
  });
});
