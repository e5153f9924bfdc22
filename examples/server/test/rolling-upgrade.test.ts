import { ORPHANED_REASON } from "@a2a-partner/a2a-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeedResult } from "../src/seed.ts";
import { postgresAvailable } from "./support/backends.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { LEASE_MS, STEP_MS } from "./support/lease-test-bed.ts";
import { PREVIOUS_RELEASE, previousReleaseServerDir } from "./support/previous-release.ts";
import { rpc, startParams } from "./support/rpc.ts";
import {
  createPostgresStore,
  openStream,
  type ServerProcess,
  type StreamRecorder,
  seedWithCli,
  startServerProcess,
  statusText,
  stopAllServerProcesses,
  type TimedFrame,
} from "./support/server-process.ts";

// A rolling upgrade on one PostgreSQL database: the previous release (PREVIOUS_RELEASE, built from this
// clone's history) made the database and runs; this tree's server starts beside it (applying its
// migrations while the old one serves), both serve under load, then the old one stops with streams open.
// Nothing is lost and nothing doubles: every task ends, every stream resumes on the new instance and sees
// each event exactly once, the robots run each task once, and each release reads what the other wrote.

const TASKS_PER_INSTANCE = 6;
/** Five robot steps of STEP_MS: long enough to stop the old instance in the middle of every task. */
const ROBOT_STEPS = 5;

type Store = Awaited<ReturnType<typeof createPostgresStore>>;

describe.skipIf(!(await postgresAvailable()))(`a rolling upgrade from ${PREVIOUS_RELEASE.slice(0, 10)}`, () => {
  let store: Store;
  let seeded: SeedResult;
  let oldServerDir: string;
  /** The previous release's instance that made the database; the first test stops it. */
  let first: ServerProcess;
  let fresh: ServerProcess;

  const env = () => ({ ...store.env, ROBOT_STEP_MS: String(STEP_MS), TASK_LEASE_MS: String(LEASE_MS) });
  const startOld = (extra: Record<string, string> = {}) =>
    startServerProcess({ ...env(), ...extra }, { serverDir: oldServerDir });
  const start = (server: ServerProcess, text: string) =>
    openStream(server.a2aUrl, seeded.partnerToken, "SendStreamingMessage", startParams(text, crypto.randomUUID()));
  const subscribe = (server: ServerProcess, taskId: string, lastEventId: string) =>
    openStream(server.a2aUrl, seeded.partnerToken, "SubscribeToTask", { id: taskId }, { "Last-Event-ID": lastEventId });
  const getTask = async (server: ServerProcess, id: string) =>
    (await rpc(server.a2aUrl, seeded.partnerToken, "GetTask", { id })).body.result;

  beforeAll(async () => {
    oldServerDir = await previousReleaseServerDir();
    store = await createPostgresStore();
    // The previous release makes and seeds the database, as it would have in production.
    seeded = await seedWithCli(store.env, oldServerDir);
    first = await startOld();
    // This release starts beside it and applies its migrations while the old one serves.
    fresh = await startServerProcess(env());
  }, 600_000);

  afterAll(async () => {
    await stopAllServerProcesses();
    await store?.drop();
  });

  async function nodeExecutions(taskId: string): Promise<number> {
    const { rows } = await store.pool.query<{ n: number }>(
      `select count(*)::int as n from workflow_node_executions n
         join workflow_executions e on e.id = n.workflow_execution_id where e.task_id = $1`,
      [taskId],
    );
    return rows[0]?.n ?? 0;
  }

  /** How many times the robots were dispatched for the task (one workflow execution per dispatch). */
  async function workflowExecutions(taskId: string): Promise<number> {
    const { rows } = await store.pool.query<{ n: number }>(
      "select count(*)::int as n from workflow_executions where task_id = $1",
      [taskId],
    );
    return rows[0]?.n ?? 0;
  }

  /** A task's stream as one sequence of frames: the old instance's, then the new one's after a reattach. */
  interface Followed {
    taskId: string;
    first: StreamRecorder;
    frames: TimedFrame[];
  }

  /**
   * After the first stream ended (cleanly on a graceful stop, broken by a kill) without `finished`,
   * reattach on `to` from the last event seen; the reattached stream's `task` frame stands for event 1.
   */
  async function reattach(followed: Followed, to: ServerProcess): Promise<void> {
    await followed.first.done;
    const seen = followed.first.frames;
    if (seen.some((f) => f.event === "finished")) {
      followed.frames = seen;
      return;
    }
    const resumed = await subscribe(to, followed.taskId, seen.at(-1)?.id as string);
    await resumed.done;
    followed.frames = [...seen, ...resumed.frames.slice(1)];
  }

  /** Every stored event once, in order, then `final`; and the robots were dispatched once. */
  async function expectEveryEventOnce(followed: Followed, endState: string): Promise<void> {
    expect(followed.frames.at(-1)?.event).toBe("final");
    const events = followed.frames.slice(0, -1);
    expect(events.map((f) => Number(f.id))).toEqual(await loggedSeqs(store.pool, followed.taskId));
    expect(events.at(-1)?.event).toBe("finished");
    expect(events.at(-1)?.result.status.state, statusText(events.at(-1)?.result.status)).toBe(endState);
    expect(await workflowExecutions(followed.taskId)).toBe(1);
  }

  it("serves while both run: each release reads the tasks the other wrote, and both read them alike", async () => {
    const old = first;
    const onOld = await start(old, "Restock aisle 1");
    const onNew = await start(fresh, "Restock aisle 2");
    await Promise.all([onOld.done, onNew.done]);
    for (const stream of [onOld, onNew]) {
      const taskId = stream.frames[0]?.result.id as string;
      expect(stream.frames.at(-2)?.result.status.state).toBe("completed");
      const [readByOld, readByNew] = await Promise.all([getTask(old, taskId), getTask(fresh, taskId)]);
      expect(readByNew).toEqual(readByOld);
      expect(readByNew).toMatchObject({ id: taskId, status: { state: "completed" } });
      expect(readByNew.artifacts.length).toBeGreaterThan(0);
      expect(await nodeExecutions(taskId)).toBe(ROBOT_STEPS);
    }
    const listed = async (server: ServerProcess) =>
      ((await rpc(server.a2aUrl, seeded.partnerToken, "ListTasks", {})).body.result.tasks as { id: string }[])
        .map((t) => t.id)
        .sort();
    expect(await listed(fresh)).toEqual(await listed(old));
    await old.kill("SIGTERM");
  });

  it("stops the old instance gracefully with streams open: every stream resumes once on the new one", async () => {
    // The previous release stops renewing leases when a graceful stop begins (fixed since): its lease
    // must outlast what its tasks still have to do, or the new instance's sweep would end them.
    const old = await startOld({ TASK_LEASE_MS: String(4 * LEASE_MS) });
    const started: Followed[] = await Promise.all(
      Array.from({ length: TASKS_PER_INSTANCE * 2 }, async (_, i) => {
        // Half the tasks start on the old instance, half on the new; every stream is held on the old one.
        const first =
          i % 2 === 0 ? await start(old, `Restock aisle ${10 + i}`) : await start(fresh, `Restock aisle ${10 + i}`);
        const taskId = (await first.until((f) => f.event === "task")).result.id as string;
        if (i % 2 === 0) return { taskId, first, frames: [] };
        first.close();
        return { taskId, first: await subscribe(old, taskId, "1"), frames: [] };
      }),
    );
    await Promise.all(started.map((f) => f.first.until((frame) => frame.event === "update")));

    const exit = await old.kill("SIGTERM");
    expect(exit.code).toBe(0);
    await Promise.all(started.map((f) => reattach(f, fresh)));

    for (const followed of started) {
      // The old instance's tasks finish within its shutdown grace; the new one's were never interrupted.
      await expectEveryEventOnce(followed, "completed");
      expect(await nodeExecutions(followed.taskId)).toBe(ROBOT_STEPS);
    }
  });

  it("SIGKILLs the old instance with streams open: its tasks end on the new one, every event once", async () => {
    const old = await startOld();
    const onOld: Followed[] = await Promise.all(
      Array.from({ length: TASKS_PER_INSTANCE }, async (_, i) => {
        const first = await start(old, `Restock aisle ${30 + i}`);
        const taskId = (await first.until((f) => f.event === "task")).result.id as string;
        return { taskId, first, frames: [] };
      }),
    );
    await Promise.all(onOld.map((f) => f.first.until((frame) => frame.event === "update")));

    await old.kill("SIGKILL");
    await Promise.all(onOld.map((f) => reattach(f, fresh)));

    for (const followed of onOld) {
      // A killed instance's running tasks are ended by the survivor's orphan sweep, as failed.
      await expectEveryEventOnce(followed, "failed");
      const finished = followed.frames.find((f) => f.event === "finished");
      expect(statusText(finished?.result.status)).toBe(ORPHANED_REASON);
    }
  });
});
