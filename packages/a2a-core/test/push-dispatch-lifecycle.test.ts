import { afterEach, describe, expect, it, vi } from "vitest";
import type { PushDelivery, PushDeliveryQueue } from "../src/ports/push-deliveries.js";
import type { Task } from "../src/protocol/schemas/a2a.js";
import { PUSH_DISPATCH } from "../src/runtime/push/dispatcher.js";
import { must, storeFixtures } from "../src/testing/store-fixtures.js";
import { receiverPerTest } from "./support/push-receiver.js";
import { pushWorld, WORKSPACE } from "./support/push-world.js";

const receiver = receiverPerTest();

// The store's clock, which decides when leases lapse: a test moves it forward instead of waiting.
let skewMs = 0;
const world = pushWorld({ clock: () => Date.now() + skewMs });
const fixtures = storeFixtures();
afterEach(() => {
  skewMs = 0;
});

describe("the push dispatcher's life", () => {
  it("close() lets an attempt under way finish within the grace and records it", async () => {
    receiver.answers.push({ status: 200, delayMs: 300 });
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    const dispatcher = world.dispatcher();
    await world.update(task, 10);
    await receiver.waitFor(1);

    const started = performance.now();
    await dispatcher.close(5_000);
    expect(performance.now() - started).toBeLessThan(2_000);
    // Delivered and removed: nothing is left for anyone to claim, now or after any lease.
    skewMs = 3_600_000;
    expect(await world.stores.push.deliveries.claim("someone-else", 10, 1_000)).toEqual([]);
  });

  it("a dead instance's claim is retaken by another once its lease lapses, under the same webhook-id", async () => {
    receiver.answers.push("hang");
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    const first = world.dispatcher({ owner: "instance-dies", attemptTimeoutMs: 60_000 });
    await world.update(task, 10);
    const [hung] = await receiver.waitFor(1);
    // Gone without recording anything (as after a SIGKILL): the claim is held until its lease lapses.
    await first.close(0);
    world.dispatcher({ owner: "instance-survives", pollIntervalMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);

    skewMs = 60_000 + PUSH_DISPATCH.leaseMarginMs + 1;
    const [, retaken] = await receiver.waitFor(2);
    expect(retaken?.headers["webhook-id"]).toBe(hung?.headers["webhook-id"]);
    expect(retaken?.body).toBe(hung?.body);
  });

  it("a failing queue is logged and tried again; the loop never stops", async () => {
    const queue = world.stores.push.deliveries;
    let failures = 2;
    const flaky: PushDeliveryQueue = {
      claim: (...args) => (failures-- > 0 ? Promise.reject(new Error("connection terminated")) : queue.claim(...args)),
      complete: (...args) => queue.complete(...args),
      retry: (...args) => queue.retry(...args),
      giveUp: (...args) => queue.giveUp(...args),
      nextDueAt: () => queue.nextDueAt(),
      watch: (listener) => queue.watch(listener),
    };
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    await world.update(task, 10);
    world.dispatcher({ deliveries: flaky });

    await receiver.waitFor(1);
    const errors = world.lines.filter((line) => line.level === "error");
    expect(errors).toHaveLength(2);
    expect(errors[0]?.msg).toContain("delivery queue failed");
  });

  it("hands a config's next event on at once and keeps at most maxInFlight deliveries in flight", async () => {
    const configs = await Promise.all(
      [1, 2, 3].map((n) => world.taskWithConfig({ id: `cfg-${n}`, url: receiver.url(`/hook/${n}`) })),
    );
    for (const { task } of configs) {
      receiver.answers.push({ status: 200, delayMs: 100 }, { status: 200, delayMs: 100 });
      await world.update(task, 10);
      await world.update(task, 20);
    }
    world.dispatcher({ maxInFlight: 2 });

    await receiver.waitFor(6);
    expect(receiver.maxOpen).toBe(2);
    // Each config's events in order.
    for (const n of [1, 2, 3]) {
      const percents = receiver.received
        .filter((push) => push.path === `/hook/${n}`)
        .map((push) => (JSON.parse(push.body) as { metadata: { percent: number } }).metadata.percent);
      expect(percents).toEqual([10, 20]);
    }
  });

  describe("deliveries handed off by the commits (PushDeliveryQueue.handOff)", () => {
    /** A queue that claims nothing itself: every delivery comes by hand-off; what it was told, in order. */
    function handingQueue(
      completeGate: Promise<void> = Promise.resolve(),
      handBack: (delivery: PushDelivery) => PushDelivery | undefined = () => undefined,
    ) {
      const calls: string[] = [];
      let handTo: ((deliveries: PushDelivery[]) => void) | undefined;
      const queue: PushDeliveryQueue = {
        claim: async () => [],
        complete: async (_owner, delivery) => {
          calls.push(`complete ${delivery.config.id} ${delivery.event.seq}`);
          await completeGate;
          return handBack(delivery);
        },
        retry: async (_owner, delivery, _at, error) => {
          calls.push(`retry ${delivery.config.id} ${delivery.event.seq}: ${error}`);
        },
        release: async (_owner, delivery) => {
          calls.push(`release ${delivery.config.id} ${delivery.event.seq}`);
        },
        giveUp: async () => undefined,
        nextDueAt: async () => undefined,
        watch: () => () => undefined,
        handOff(_owner, _leaseMs, listener) {
          handTo = listener;
          return () => {
            handTo = undefined;
          };
        },
      };
      const hand = (deliveries: PushDelivery[]) => must(handTo)(deliveries);
      return { queue, calls, hand, handing: () => handTo !== undefined };
    }

    /** Events 2, 3, … of a task for config `configId`, as a commit would hand them off (attempt 1). */
    function handed(task: Task, configId: string, percents: number[], path = "/hook", firstSeq = 2): PushDelivery[] {
      return percents.map((percent, index) => {
        const entry = fixtures.update(task, percent);
        const seq = index + firstSeq;
        return {
          id: `${task.id}/${seq}/${configId}`,
          workspaceId: WORKSPACE,
          config: {
            id: configId,
            taskId: task.id,
            url: receiver.url(path),
            version: "0.3",
            createdAt: new Date().toISOString(),
          },
          event: { taskId: task.id, seq, createdAt: new Date().toISOString(), ...entry },
          attempt: 1,
          durableAt: new Date().toISOString(),
        };
      });
    }
    const percentsOf = (path = "/hook") =>
      receiver.received
        .filter((push) => push.path === path)
        .map((push) => (JSON.parse(push.body) as { metadata: { percent: number } }).metadata.percent);

    it("sends a config's run in order, each as soon as the one before was answered, not its complete", async () => {
      let openGate: (() => void) | undefined;
      const { queue, calls, hand } = handingQueue(new Promise<void>((resolve) => (openGate = resolve)));
      world.dispatcher({ deliveries: queue });
      const { task } = await world.taskWithConfig({ url: receiver.url() });
      hand(handed(task, "cfg-1", [10, 20, 30]).reverse());

      // No complete has answered, yet all three went, in order.
      await receiver.waitFor(3);
      expect(percentsOf()).toEqual([10, 20, 30]);
      await vi.waitFor(() => expect(calls).toHaveLength(3));
      expect(calls).toEqual(["complete cfg-1 2", "complete cfg-1 3", "complete cfg-1 4"]);
      openGate?.();
    });

    it("stops a run at a failed attempt: retried later, the rest given back to be claimed after it", async () => {
      receiver.answers.push({ status: 503 });
      const { queue, calls, hand } = handingQueue();
      world.dispatcher({ deliveries: queue });
      const { task } = await world.taskWithConfig({ url: receiver.url() });
      hand(handed(task, "cfg-1", [10, 20, 30]));

      await vi.waitFor(() => expect(calls).toHaveLength(3));
      expect(receiver.received).toHaveLength(1);
      expect(calls[0]).toMatch(/^retry cfg-1 2: .*503/);
      expect(calls.slice(1).sort()).toEqual(["release cfg-1 3", "release cfg-1 4"]);
    });

    it("sends a hand-off behind the config's run after it, and one behind a delivered event at once", async () => {
      const { queue, calls, hand } = handingQueue();
      world.dispatcher({ deliveries: queue });
      const { task } = await world.taskWithConfig({ url: receiver.url() });
      receiver.answers.push({ status: 200, delayMs: 100 });
      hand(handed(task, "cfg-1", [10]));
      await vi.waitFor(() => expect(receiver.open).toBe(1));
      // Committed while seq 2 was on its way: it joins that run, and goes only once seq 2 was answered.
      hand(handed(task, "cfg-1", [20], "/hook", 3).map((d) => ({ ...d, after: 2 })));
      await receiver.waitFor(2);
      expect(receiver.maxOpen).toBe(1);
      expect(percentsOf()).toEqual([10, 20]);

      // Behind seq 3, delivered already (its run is over): a run of its own, at once.
      await vi.waitFor(() => expect(calls).toEqual(["complete cfg-1 2", "complete cfg-1 3"]));
      hand(handed(task, "cfg-1", [30], "/hook", 4).map((d) => ({ ...d, after: 3 })));
      await receiver.waitFor(3);
      expect(percentsOf()).toEqual([10, 20, 30]);
    });

    it("does not send again what a complete hands back that a run holds or sent; sends one nobody holds", async () => {
      const { task } = await world.taskWithConfig({ url: receiver.url() });
      const [two, three, four] = handed(task, "cfg-1", [10, 20, 30]);
      // The store hands each next one back (its owner holds it); seq 4 as if left by an earlier life.
      const next = new Map([
        [2, three],
        [3, four],
      ]);
      const { queue, calls, hand } = handingQueue(Promise.resolve(), (d) => next.get(d.event.seq));
      world.dispatcher({ deliveries: queue });
      hand([must(two), must(three)]);

      await receiver.waitFor(3);
      await vi.waitFor(() => expect(calls).toHaveLength(3));
      expect(percentsOf()).toEqual([10, 20, 30]);
      // Seq 4's own hand-off arriving after the complete handed it back: it went already.
      hand([{ ...must(four), after: 3 }]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(receiver.received).toHaveLength(3);
    });

    it("gives back a hand-off behind an event that was not delivered, to be claimed after it", async () => {
      receiver.answers.push({ status: 503 });
      const { queue, calls, hand } = handingQueue();
      world.dispatcher({ deliveries: queue });
      const { task } = await world.taskWithConfig({ url: receiver.url() });
      hand(handed(task, "cfg-1", [10]));
      await vi.waitFor(() => expect(calls).toHaveLength(1));
      expect(calls[0]).toMatch(/^retry cfg-1 2: .*503/);

      hand(handed(task, "cfg-1", [20], "/hook", 3).map((d) => ({ ...d, after: 2 })));
      await vi.waitFor(() => expect(calls).toHaveLength(2));
      expect(calls[1]).toBe("release cfg-1 3");
      expect(receiver.received).toHaveLength(1);
    });

    it("gives back a run that waited too long for a slot, even while no slot comes free", async () => {
      receiver.answers.push("hang");
      const { queue, calls, hand } = handingQueue();
      world.dispatcher({ deliveries: queue, maxInFlight: 1, attemptTimeoutMs: 60_000 });
      const [stuck, waiting] = await Promise.all([1, 2].map(() => world.taskWithConfig({ url: receiver.url() })));
      hand(handed(must(stuck).task, "cfg-1", [1]));
      await receiver.waitFor(1);
      hand(handed(must(waiting).task, "cfg-1", [2, 3]));

      await vi.waitFor(() => expect(calls).toEqual(["release cfg-1 2", "release cfg-1 3"]), { timeout: 8_000 });
      expect(receiver.received).toHaveLength(1);
    });

    it("keeps at most maxInFlight in flight (the others wait for a slot) and takes none once closing", async () => {
      const { queue, calls, hand, handing } = handingQueue();
      const dispatcher = world.dispatcher({ deliveries: queue, maxInFlight: 1 });
      const tasks = await Promise.all([1, 2, 3].map(() => world.taskWithConfig({ url: receiver.url() })));
      for (const [n, { task }] of tasks.entries()) {
        receiver.answers.push({ status: 200, delayMs: 50 });
        hand(handed(task, "cfg-1", [n + 1], `/hook/${n}`));
      }
      await receiver.waitFor(3);
      expect(receiver.maxOpen).toBe(1);
      expect([0, 1, 2].flatMap((n) => percentsOf(`/hook/${n}`))).toEqual([1, 2, 3]);

      await dispatcher.close(1_000);
      expect(handing()).toBe(false);
      // One on its way as it closed is let go at once rather than held to the end of its lease.
      const [late] = tasks;
      dispatcher.accept(handed(must(late).task, "cfg-1", [99], "/hook", 3));
      await vi.waitFor(() => expect(calls.at(-1)).toBe("release cfg-1 3"));
      expect(receiver.received).toHaveLength(3);
    });
  });
});
