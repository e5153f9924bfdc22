import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PushDeliveryQueue } from "../src/ports/push-deliveries.js";
import { PUSH_DISPATCH } from "../src/runtime/push/dispatcher.js";
import { PushReceiver } from "./support/push-receiver.js";
import { pushWorld } from "./support/push-world.js";

let receiver: PushReceiver;
beforeEach(async () => {
  receiver = await PushReceiver.start();
});
afterEach(async () => {
  await receiver.close();
});

// The store's clock, which decides when leases lapse: a test moves it forward instead of waiting.
let skewMs = 0;
const world = pushWorld({ clock: () => Date.now() + skewMs });
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
});
