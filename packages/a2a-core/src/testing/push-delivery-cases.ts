import { describe, expect, it } from "vitest";
import type { A2APushStores } from "../ports/a2a-stores.js";
import { applyTaskEvent } from "../ports/apply-task-event.js";
import type { PushConfig } from "../ports/push-configs.js";
import { claimOf, claimUntil, owner, pushCases, pushConfig, target } from "./push-fixtures.js";
import type { StoreContractContext } from "./store-contract-context.js";
import { must, within } from "./store-fixtures.js";

/**
 * What every PushDeliveryQueue does with the deliveries the event log writes: one per config for every
 * event committed while the config exists, claimed as leases, one in flight per config in seq order.
 */
export function definePushDeliveryCases(current: () => StoreContractContext): void {
  describe("PushDeliveryQueue", () => {
    const cases = pushCases(current);

    /** A task of workspace A with `count` configs put now. */
    /** A task of workspace A with `count` configs, and a progress update appended for each of `updates`. */
    async function taskWithConfigs(push: A2APushStores, count: number, updates: number[] = []) {
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const configs: PushConfig[] = [];
      for (let i = 0; i < count; i++) {
        const config = pushConfig(task.id, { id: `config-${i}-${crypto.randomUUID()}` });
        cases.track(push, workspaceA, [config]);
        expect((await push.configs.put(workspaceA, config, 10)).kind).toBe("stored");
        configs.push(config);
      }
      for (const percent of updates) await stores.events.append(task.id, fixtures.update(task, percent));
      return { task, configs };
    }

    it("delivers every event committed after a config was made, by every writer, and none before", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      await stores.events.append(task.id, fixtures.update(task, 10));
      const config = pushConfig(task.id, { token: "t", authentication: { schemes: ["Bearer"], credentials: "c" } });
      cases.track(push, workspaceA, [config]);
      await push.configs.put(workspaceA, config, 10);
      const before = Date.now();
      await stores.events.append(task.id, fixtures.update(task, 20));
      // The runner's numbered appends: two events in one step, each with its delivery.
      const artifact = fixtures.update(task, 30);
      const ending = fixtures.finished(task);
      const snapshot = applyTaskEvent(applyTaskEvent(task, artifact.result), ending.result);
      const numbered = [
        { taskId: task.id, seq: 4, ...artifact },
        { taskId: task.id, seq: 5, ...ending },
      ];
      expect(await stores.events.appendNumbered({ taskId: task.id, prevSeq: 3, events: numbered, snapshot })).toBe(
        true,
      );
      const log = await stores.events.readAfter(task.id, 0);

      const dispatcher = owner("dispatcher");
      const [first, ...rest] = await claimOf(push, dispatcher, [task.id]);
      expect(rest).toEqual([]);
      expect(must(first)).toMatchObject({ workspaceId: workspaceA, config, event: log[2], attempt: 1 });
      const durableAt = Date.parse(must(first).durableAt);
      expect(durableAt).toBeGreaterThanOrEqual(before - 2_000);
      expect(durableAt).toBeLessThanOrEqual(Date.now() + 2_000);

      // Each completion hands over the config's next event, claimed for the same owner.
      const seqs = [must(first).event.seq];
      let next = await push.deliveries.complete(dispatcher, must(first), 60_000);
      while (next) {
        expect(next).toMatchObject({ config: { id: config.id }, attempt: 1 });
        expect(next.event).toEqual(log[next.event.seq - 1]);
        seqs.push(next.event.seq);
        next = await push.deliveries.complete(dispatcher, next, 60_000);
      }
      expect(seqs).toEqual([3, 4, 5]);
      expect(await claimOf(push, owner("late"), [task.id])).toEqual([]);
    });

    it("gives a start's seq-1 task event one delivery per config made with it", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      const configs = [pushConfig(input.task.id, { version: "1.0" }), pushConfig(input.task.id)];
      cases.track(push, workspaceA, configs);
      await stores.idempotency.createOrGet(`msg-${crypto.randomUUID()}`, { ...input, pushConfigs: configs });
      const claimed = await claimOf(push, owner("dispatcher"), [input.task.id]);
      expect(claimed.map(target).sort()).toEqual(configs.map((c) => `${c.id}@1`).sort());
      for (const delivery of claimed) {
        expect(delivery.event).toMatchObject({ seq: 1, event: "task", result: { task: input.task } });
        expect(delivery.config).toEqual(configs.find((c) => c.id === delivery.config.id));
      }
    });

    it("passes over the workspaces and a workspace's receivers a claim names (the dispatcher's fair share)", async ({
      skip,
    }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const mine = await stores.tasks.create(fixtures.newTask(workspaceA));
      const theirs = await stores.tasks.create(fixtures.newTask(workspaceB));
      const busy = pushConfig(mine.task.id, { url: "https://user@Hooks.Example.com:8443/busy?x=1" });
      const other = pushConfig(mine.task.id);
      const stranger = pushConfig(theirs.task.id);
      cases.track(push, workspaceA, [busy, other]);
      cases.track(push, workspaceB, [stranger]);
      for (const config of [busy, other]) await push.configs.put(workspaceA, config, 10);
      await push.configs.put(workspaceB, stranger, 10);
      for (const { task } of [mine, theirs]) await stores.events.append(task.id, fixtures.update(task, 10));
      const tasks = [mine.task.id, theirs.task.id];

      const dispatcher = owner("fair");
      const skipReceivers = [{ workspace: workspaceA, receiver: "hooks.example.com:8443" }];
      const claimed = await push.deliveries.claim(dispatcher, 1000, 60_000, {
        skipWorkspaces: [workspaceB],
        skipReceivers,
      });
      expect(claimed.filter((d) => tasks.includes(d.event.taskId)).map(target)).toEqual([`${other.id}@2`]);
      const rest = await claimOf(push, dispatcher, tasks);
      expect(rest.map(target).sort()).toEqual([`${busy.id}@2`, `${stranger.id}@2`].sort());
    });

    it("keeps one delivery in flight per config: the next is claimable only once the first is done", async ({
      skip,
    }) => {
      const push = cases.push(skip);
      const { task, configs } = await taskWithConfigs(push, 2, [10, 20, 30]);
      const [a, b] = configs as [PushConfig, PushConfig];

      const first = owner("first");
      const heads = await claimOf(push, first, [task.id]);
      expect(heads.map(target).sort()).toEqual([`${a.id}@2`, `${b.id}@2`].sort());
      // Nobody gets a config's later events while its head is in flight.
      expect(await claimOf(push, owner("second"), [task.id])).toEqual([]);

      // a's head delivered: a's next is handed over; b's next still waits for b's head.
      const aHead = must(heads.find((d) => d.config.id === a.id));
      const aNext = must(await push.deliveries.complete(first, aHead, 60_000));
      expect(target(aNext)).toBe(`${a.id}@3`);
      expect(await claimOf(push, owner("third"), [task.id])).toEqual([]);
      const bHead = must(heads.find((d) => d.config.id === b.id));
      expect(target(must(await push.deliveries.complete(first, bHead, 60_000)))).toBe(`${b.id}@3`);
    });

    it("treats a claim as a lease: once it expires another owner retakes it, and the old owner can no longer settle it", async ({
      skip,
    }) => {
      const push = cases.push(skip);
      const { task } = await taskWithConfigs(push, 1, [10, 20]);

      const dead = owner("dead");
      const [lost] = await claimOf(push, dead, [task.id], 150);
      expect(lost?.event.seq).toBe(2);
      const alive = owner("alive");
      const [retaken, ...none] = await claimUntil(push, alive, [task.id], (found) => found.length > 0);
      expect(none).toEqual([]);
      expect(must(retaken)).toMatchObject({ id: must(lost).id, event: { seq: 2 }, attempt: 2 });

      // The old owner's settlements are no-ops: the delivery stays the new owner's.
      expect(await push.deliveries.complete(dead, must(lost), 60_000)).toBeUndefined();
      await push.deliveries.retry(dead, must(lost), new Date(Date.now() + 3_600_000), "stale");
      await push.deliveries.giveUp(dead, must(lost), "stale");
      expect(await push.deliveries.complete(owner("stranger"), must(lost), 60_000)).toBeUndefined();
      expect(await claimOf(push, owner("another"), [task.id])).toEqual([]);
      const next = await push.deliveries.complete(alive, must(retaken), 60_000);
      expect(next?.event.seq).toBe(3);
    });

    it("settles completes made at once each on its own: a config's next goes to its caller alone, a stranger's does nothing", async ({
      skip,
    }) => {
      const push = cases.push(skip);
      const { task, configs } = await taskWithConfigs(push, 3, [10, 20]);
      const [a, b, c] = configs as [PushConfig, PushConfig, PushConfig];
      const first = owner("first");
      const heads = await claimOf(push, first, [task.id]);
      const head = (config: PushConfig) => must(heads.find((d) => d.config.id === config.id));

      // The same moment: a twice (a retaken delivery's duplicate answer), b, and c by someone else.
      const [aOnce, bNext, cStranger, aTwice] = await Promise.all([
        push.deliveries.complete(first, head(a), 60_000),
        push.deliveries.complete(first, head(b), 60_000),
        push.deliveries.complete(owner("stranger"), head(c), 60_000),
        push.deliveries.complete(first, head(a), 60_000),
      ]);
      const aNexts = [aOnce, aTwice].filter((next) => next !== undefined);
      expect(aNexts.map(target)).toEqual([`${a.id}@3`]);
      expect(target(must(bNext))).toBe(`${b.id}@3`);
      expect(cStranger).toBeUndefined();
      // c's head is still first's: nobody else gets c, and first's complete hands its next on.
      expect(await claimOf(push, owner("second"), [task.id])).toEqual([]);
      expect(target(must(await push.deliveries.complete(first, head(c), 60_000)))).toBe(`${c.id}@3`);
    });

    it("makes a retried delivery due again at retryAt, its attempts counted", async ({ skip }) => {
      const push = cases.push(skip);
      const { task } = await taskWithConfigs(push, 1, [10]);
      const dispatcher = owner("dispatcher");
      const [failed] = await claimOf(push, dispatcher, [task.id]);
      const retryAt = new Date(Date.now() + 1_000);
      await push.deliveries.retry(dispatcher, must(failed), retryAt, "HTTP 503");
      expect(await claimOf(push, dispatcher, [task.id])).toEqual([]);
      const due = await push.deliveries.nextDueAt();
      expect(due).toBeInstanceOf(Date);
      expect(must(due).getTime()).toBeLessThanOrEqual(retryAt.getTime());

      const [again] = await claimUntil(push, dispatcher, [task.id], (found) => found.length > 0);
      // Due no earlier than asked (the store's clock and the test's are one machine's).
      expect(Date.now()).toBeGreaterThanOrEqual(retryAt.getTime() - 50);
      expect(must(again)).toMatchObject({ id: must(failed).id, event: { seq: 2 }, attempt: 2 });
    });

    it("keeps a given-up delivery out for good and lets the config's next event through", async ({ skip }) => {
      const push = cases.push(skip);
      const { task } = await taskWithConfigs(push, 1, [10, 20]);
      const dispatcher = owner("dispatcher");
      const [head] = await claimOf(push, dispatcher, [task.id]);
      expect(head?.event.seq).toBe(2);
      await push.deliveries.giveUp(dispatcher, must(head), "past the horizon");
      const [next, ...rest] = await claimOf(push, owner("next"), [task.id]);
      expect(rest).toEqual([]);
      expect(must(next)).toMatchObject({ event: { seq: 3 }, attempt: 1 });
      expect(next?.id).not.toBe(head?.id);
    });

    it("drops a deleted config's undelivered deliveries; a replaced config's go to its new address", async ({
      skip,
    }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, fixtures } = current();
      const { task, configs } = await taskWithConfigs(push, 2);
      const [gone, moved] = configs as [PushConfig, PushConfig];
      await stores.events.append(task.id, fixtures.update(task, 10));
      await stores.events.append(task.id, fixtures.update(task, 20));
      const dispatcher = owner("dispatcher");
      const heads = await claimOf(push, dispatcher, [task.id]);
      const goneHead = must(heads.find((d) => d.config.id === gone.id));
      const movedHead = must(heads.find((d) => d.config.id === moved.id));

      expect(await push.configs.delete(workspaceA, task.id, gone.id)).toBe(true);
      const newAddress = "https://receiver.example.com/new-address";
      await push.configs.put(workspaceA, { ...moved, url: newAddress }, 10);
      // The deleted config's delivery in flight is gone, and so is everything after it.
      expect(await push.deliveries.complete(dispatcher, goneHead, 60_000)).toBeUndefined();
      const movedNext = must(await push.deliveries.complete(dispatcher, movedHead, 60_000));
      expect(target(movedNext)).toBe(`${moved.id}@3`);
      expect(movedNext.config.url).toBe(newAddress);
      expect(await push.deliveries.complete(dispatcher, movedNext, 60_000)).toBeUndefined();

      // Later events go to the configs that are left.
      await stores.events.append(task.id, fixtures.update(task, 30));
      expect((await claimOf(push, owner("after"), [task.id])).map(target)).toEqual([`${moved.id}@4`]);
    });

    it("tells a watcher when a new delivery is written", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, fixtures } = current();
      const { task } = await taskWithConfigs(push, 1);
      let stop = () => {};
      const told = new Promise<void>((resolve) => {
        stop = push.deliveries.watch(() => resolve());
      });
      try {
        await stores.events.append(task.id, fixtures.update(task, 10));
        await within(3_000, told);
      } finally {
        stop();
      }
    });
  });
}
