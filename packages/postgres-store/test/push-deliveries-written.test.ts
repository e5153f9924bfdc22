import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";
import { deliveryKeys, pushConfig, RunningTask } from "./support/push-fixtures.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

// A delivery exists exactly when its event does: whichever writer commits an event of a task with configs
// writes one delivery per config with it, and a write that is refused writes none.
describe.each(kinds)("push deliveries are written with their events (%s)", (kind) => {
  const fixtures = storeFixtures();
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "push_written");

  async function withConfigs(...ids: string[]): Promise<RunningTask> {
    const running = await RunningTask.start(suite.stores, fixtures, workspaceId);
    for (const id of ids) await suite.stores.push.configs.put(workspaceId, pushConfig(running.task.id, id), 10);
    return running;
  }

  it("by a group commit that mixes tasks with and without configs: one per config of each event", async () => {
    const two = await withConfigs("a", "b");
    const none = await withConfigs();
    const one = await withConfigs("c");
    // Asked for in one turn of the event loop, so they ride one commit.
    expect(await Promise.all([two.next(), none.next(), one.next()])).toEqual([true, true, true]);
    expect(await Promise.all([two.next(), one.next()])).toEqual([true, true]);
    expect(await deliveryKeys(suite.backend.db, two.task.id)).toEqual(["a 2", "a 3", "b 2", "b 3"]);
    expect(await deliveryKeys(suite.backend.db, none.task.id)).toEqual([]);
    expect(await deliveryKeys(suite.backend.db, one.task.id)).toEqual(["c 2", "c 3"]);
    expect((await suite.stores.events.readAfter(none.task.id, 0)).map((event) => event.seq)).toEqual([1, 2]);
  });

  it("by an append of several events at once: one per config of each", async () => {
    const running = await withConfigs("a");
    const first = running.numbered();
    const second = { taskId: running.task.id, seq: 3, ...fixtures.update(first.snapshot, 50) };
    expect(
      await suite.stores.events.appendNumbered({
        taskId: running.task.id,
        prevSeq: 1,
        events: [first.event, second],
        snapshot: first.snapshot,
      }),
    ).toBe(true);
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["a 2", "a 3"]);
  });

  it("not by an append refused for its stale sequence number, nor by one after the task ended", async () => {
    const running = await withConfigs("a");
    const { event, snapshot } = running.numbered();
    expect(await running.next()).toBe(true);
    // The same event again: the task is no longer at seq 1.
    expect(
      await suite.stores.events.appendNumbered({ taskId: running.task.id, prevSeq: 1, events: [event], snapshot }),
    ).toBe(false);
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["a 2"]);

    // A cancel from another writer (EventLog.append) ends it: its event gets its delivery.
    const end = must(
      await suite.stores.events.append(running.task.id, fixtures.finished(running.task, "TASK_STATE_CANCELED")),
    );
    expect(end.seq).toBe(3);
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["a 2", "a 3"]);
    // Nothing more is written to an ended task, by either path.
    expect(await suite.stores.events.append(running.task.id, fixtures.update(running.task, 99))).toBeUndefined();
    expect(await running.next()).toBe(false);
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["a 2", "a 3"]);
  });

  it("by a start with inline configs (its own statement): the configs and the seq-1 deliveries; a retry writes nothing", async () => {
    const input = fixtures.newTask(workspaceId);
    const messageId = crypto.randomUUID();
    const configs = [pushConfig(input.task.id, "inline", { token: "t" }), pushConfig(input.task.id, "second")];
    const started = await suite.stores.idempotency.createOrGet(messageId, { ...input, pushConfigs: configs });
    expect(started.created).toBe(true);
    expect(await suite.stores.push.configs.list(workspaceId, input.task.id)).toEqual(configs);
    expect(await deliveryKeys(suite.backend.db, input.task.id)).toEqual(["inline 1", "second 1"]);

    // The retry names the same task: its configs are ignored, nothing is written.
    const retried = await suite.stores.idempotency.createOrGet(messageId, {
      ...fixtures.newTask(workspaceId),
      pushConfigs: [pushConfig(input.task.id, "ignored")],
    });
    expect(retried.created).toBe(false);
    expect(retried.record.task.id).toBe(input.task.id);
    expect(await suite.stores.push.configs.list(workspaceId, input.task.id)).toEqual(configs);
    expect(await deliveryKeys(suite.backend.db, input.task.id)).toEqual(["inline 1", "second 1"]);

    // And the task goes on: its next event reaches both configs.
    const running = new RunningTask(suite.stores, fixtures, started.record.task);
    expect(await running.next()).toBe(true);
    expect(await deliveryKeys(suite.backend.db, input.task.id)).toEqual([
      "inline 1",
      "inline 2",
      "second 1",
      "second 2",
    ]);
  });

  it("by starts riding a group commit beside appends, with and without configs; a taken key writes nothing", async () => {
    const writer = suite.stores.events.writer;
    const appending = await withConfigs("a");
    const withPush = fixtures.newTask(workspaceId);
    const without = fixtures.newTask(workspaceId);
    const key = crypto.randomUUID();
    const [appended, startedWith, startedWithout] = await Promise.all([
      appending.next(),
      writer.startTask({ ...withPush, pushConfigs: [pushConfig(withPush.task.id, "inline")] }, key),
      writer.startTask(without, crypto.randomUUID()),
    ]);
    expect(appended).toBe(true);
    expect(startedWith?.created).toBe(true);
    expect(startedWithout?.created).toBe(true);
    expect(await deliveryKeys(suite.backend.db, appending.task.id)).toEqual(["a 2"]);
    expect(await deliveryKeys(suite.backend.db, withPush.task.id)).toEqual(["inline 1"]);
    expect(await deliveryKeys(suite.backend.db, without.task.id)).toEqual([]);

    // The key is taken: a start with configs of its own writes no config and no delivery.
    const other = fixtures.newTask(workspaceId);
    const retried = await writer.startTask({ ...other, pushConfigs: [pushConfig(other.task.id, "x")] }, key);
    expect(retried).toMatchObject({ created: false, record: { task: { id: withPush.task.id } } });
    expect(await suite.stores.push.configs.list(workspaceId, other.task.id)).toBeUndefined();
    expect(await deliveryKeys(suite.backend.db, other.task.id)).toEqual([]);
    expect(await suite.stores.push.configs.list(workspaceId, withPush.task.id)).toHaveLength(1);
  });
});
