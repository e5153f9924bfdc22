import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PushReceiver } from "./support/push-receiver.js";
import { pushWorld } from "./support/push-world.js";

// 32 slots and a 3 s attempt timeout stand in for 256 and 10 s: one tenant's receivers that accept and
// never answer must not hold every slot.
const SLOTS = 32;
/** What one workspace's one receiver may hold: all but the 2 kept for other workspaces and 1 of its 30 for its other receivers. */
const ONE_RECEIVER_MAX = 29;
const TIMEOUT_MS = 3_000;
/** Well under the attempt timeout: the notification did not wait for a hanging one to give up. */
const PROMPT_MS = 1_000;

let hanging: PushReceiver;
let prompt: PushReceiver;
beforeEach(async () => {
  [hanging, prompt] = await Promise.all([PushReceiver.start(), PushReceiver.start()]);
  hanging.answers.push(...Array.from({ length: 200 }, () => "hang" as const));
});
afterEach(async () => {
  await Promise.all([hanging.close(), prompt.close()]);
});

/** Stores of its own for each case: a case's deliveries must not reach the next one's dispatcher. */
function fairShareCase(name: string, body: (world: ReturnType<typeof pushWorld>) => Promise<void>): void {
  describe("push delivery shares its slots fairly", () => {
    const world = pushWorld();
    it(name, () => body(world));
  });
}

/** `count` tasks of `workspace`, each with a config at the hanging receiver and an event to deliver. */
async function hang(world: ReturnType<typeof pushWorld>, workspace: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { task } = await world.taskWithConfig({ url: hanging.url(`/hang/${i}`) }, workspace);
    await world.update(task, i);
  }
}

/** Waits until the hanging receiver holds `count` requests open. */
async function untilHanging(count: number): Promise<void> {
  await hanging.waitFor(count);
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * With `busy`'s hanging receiver holding every slot it may have, how long (ms) a notification of a new
 * task of `to.workspace` takes to reach the prompt receiver at `to.path`.
 */
async function promptDelayWhileHanging(
  world: ReturnType<typeof pushWorld>,
  busy: string,
  to: { path: string; workspace: string },
): Promise<number> {
  await hang(world, busy, 40);
  world.dispatcher({ maxInFlight: SLOTS, attemptTimeoutMs: TIMEOUT_MS });
  await untilHanging(ONE_RECEIVER_MAX);

  const { task } = await world.taskWithConfig({ url: prompt.url(to.path) }, to.workspace);
  const sentAt = performance.now();
  await world.update(task, 50);
  const [push] = await prompt.waitFor(1, TIMEOUT_MS * 2);
  return (push?.at ?? Number.POSITIVE_INFINITY) - sentAt;
}

fairShareCase(
  "another workspace's first notification goes out while one workspace's receiver hangs in every slot it may have",
  async (world) => {
    expect(await promptDelayWhileHanging(world, "ws-busy", { path: "/quiet", workspace: "ws-quiet" })).toBeLessThan(
      PROMPT_MS,
    );
    // The busy workspace used the idle slots but the ones kept for other workspaces and receivers.
    expect(hanging.maxOpen).toBe(ONE_RECEIVER_MAX);
  },
);

fairShareCase("a workspace's other receiver is not held up by its hanging one", async (world) => {
  expect(await promptDelayWhileHanging(world, "ws-one", { path: "/other", workspace: "ws-one" })).toBeLessThan(
    PROMPT_MS,
  );
});

fairShareCase("a config's events still go in order, one after another", async (world) => {
  const { task } = await world.taskWithConfig({ url: prompt.url("/ordered") }, "ws-solo");
  for (let percent = 1; percent <= 5; percent++) await world.update(task, percent);
  world.dispatcher({ maxInFlight: SLOTS, attemptTimeoutMs: TIMEOUT_MS });

  await prompt.waitFor(5);
  const percents = prompt.bodies().map((body) => (body as { metadata?: { percent?: number } }).metadata?.percent);
  expect(percents).toEqual([1, 2, 3, 4, 5]);
});
