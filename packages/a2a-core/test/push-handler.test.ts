import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createPushDispatcher } from "../src/index.js";
import { guardedPushFetch, nodePushDestinationCheck } from "../src/node.js";
import { harnessPerTest, readFrames, ScriptedExecutor, startParams } from "./support/handler-harness.js";
import { receiverPerTest } from "./support/push-receiver.js";
import { failedAttemptError, recordingLogger, SECRETS } from "./support/push-world.js";

const receiver = receiverPerTest();

const harness = harnessPerTest();

/** Starts a gated task and gives it a config pointing at the receiver, straight in the store. */
async function startWithConfig(h: ReturnType<typeof harness>) {
  const response = await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() });
  const [first] = await readFrames(response, 1);
  const taskId = first?.result.id as string;
  const put = await h.stores.push.configs.put(
    "ws-a",
    { id: "cfg-1", taskId, url: receiver.url(), version: "0.3", createdAt: new Date().toISOString() },
    10,
  );
  expect(put.kind).toBe("stored");
  return { taskId, response };
}

const gated = () => new ScriptedExecutor(undefined, undefined, true);

/**
 * Starts a task with an inline config, lets its three steps run, and checks the receiver got its three
 * updates in order, the last one final and completed; the task id and what the receiver got.
 */
async function runsAndIsDelivered(h: ReturnType<typeof harness>) {
  const { taskId } = await startWithConfig(h);
  for (let step = 0; step < 3; step++) await h.executor.release();
  const pushes = await receiver.waitFor(3);
  expect(pushes.map((push) => JSON.parse(push.body))).toEqual([
    expect.objectContaining({ kind: "status-update", taskId, final: false }),
    expect.objectContaining({ kind: "status-update", taskId, final: false }),
    expect.objectContaining({
      kind: "status-update",
      taskId,
      final: true,
      status: expect.objectContaining({ state: "completed" }),
    }),
  ]);
  return { taskId, pushes };
}

describe("push notifications in createA2AHandler", () => {
  it("delivers a running task's events from the handler's own dispatcher, over guardedPushFetch", async () => {
    const h = harness(gated(), {
      push: { signingSecrets: async () => SECRETS, fetch: guardedPushFetch({ allowedHosts: ["127.0.0.1"] }) },
    });
    await runsAndIsDelivered(h);
  });

  it("delivers to a config made through the method, signed; the default guard refuses the same URL at creation", async () => {
    const allowedHosts = ["127.0.0.1"];
    const h = harness(gated(), {
      push: {
        signingSecrets: async () => SECRETS,
        checkDestination: nodePushDestinationCheck({ allowedHosts }),
        fetch: guardedPushFetch({ allowedHosts }),
      },
    });
    const response = await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() });
    const taskId = (await readFrames(response, 1))[0]?.result.id as string;
    const set = await h.rpc("tasks/pushNotificationConfig/set", {
      taskId,
      pushNotificationConfig: { url: receiver.url("/from-method"), token: "t-1" },
    });
    expect(set.body.result).toMatchObject({ taskId, pushNotificationConfig: { url: receiver.url("/from-method") } });
    await h.executor.release();

    const [push] = await receiver.waitFor(1);
    expect(push?.headers["x-a2a-notification-token"]).toBe("t-1");
    expect(
      new Webhook(SECRETS[1] as string).verify(push?.body ?? "", push?.headers as Record<string, string>),
    ).toMatchObject({
      kind: "status-update",
      taskId,
    });

    // Without the operator's allowance the default check (no option given) refuses the loopback receiver.
    const strict = harness(gated(), { push: { signingSecrets: async () => SECRETS } });
    const strictStart = await strict.call({
      jsonrpc: "2.0",
      id: 2,
      method: "SendStreamingMessage",
      params: startParams(),
    });
    const strictTask = (await readFrames(strictStart, 1))[0]?.result.id as string;
    const refused = await strict.rpc("tasks/pushNotificationConfig/set", {
      taskId: strictTask,
      pushNotificationConfig: { url: receiver.url() },
    });
    expect(refused.body.error).toMatchObject({ code: -32602 });
    expect(refused.body.error.message).toContain("127.0.0.1 is a loopback address");
  });

  it("retries a connection the guard refuses, and says so in the log", async () => {
    const { logger, lines } = recordingLogger();
    const h = harness(gated(), { logger, push: { signingSecrets: async () => SECRETS, fetch: guardedPushFetch() } });
    await startWithConfig(h);
    await h.executor.release();

    expect(await failedAttemptError(lines)).toContain("127.0.0.1 is a loopback address");
    expect(receiver.received).toEqual([]);
  });

  it("stops the dispatcher on close(): what is committed after is left in the queue for another instance", async () => {
    const h = harness(gated(), { push: { signingSecrets: async () => SECRETS } });
    await startWithConfig(h);
    await h.executor.release();
    await receiver.waitFor(1);

    // The task is still running: close() ends it `failed` after the grace, an event the dispatcher,
    // stopped by then, does not send.
    await h.handler.close({ graceMs: 200 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
    const left = await h.stores.push.deliveries.claim("elsewhere", 10, 1_000);
    expect(left.map((delivery) => [delivery.event.seq, delivery.event.event])).toEqual([[3, "finished"]]);
  });

  it("sends nothing from an instance with push.dispatch false (another instance delivers)", async () => {
    const h = harness(gated(), { push: { signingSecrets: async () => SECRETS, dispatch: false } });
    await startWithConfig(h);
    await h.executor.release();

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toEqual([]);
    // The delivery waits in the queue for a dispatcher.
    const claimed = await h.stores.push.deliveries.claim("elsewhere", 10, 1_000);
    expect(claimed.map((delivery) => delivery.event.seq)).toEqual([2]);
  });

  it("delivers from a dispatcher of its own (createPushDispatcher) beside a handler with push.dispatch false, measured where it is told", async () => {
    const h = harness(gated(), { push: { signingSecrets: async () => SECRETS, dispatch: false } });
    const measured = { attempted: 0, delivered: [] as number[], failed: 0, givenUp: 0 };
    const dispatcher = createPushDispatcher({
      deliveries: h.stores.push.deliveries,
      instanceId: "push-elsewhere",
      push: { signingSecrets: async () => SECRETS, fetch: guardedPushFetch({ allowedHosts: ["127.0.0.1"] }) },
      telemetry: {
        attempted: () => measured.attempted++,
        delivered: (lagMs) => measured.delivered.push(lagMs),
        failed: () => measured.failed++,
        givenUp: () => measured.givenUp++,
      },
    });
    dispatcher.start();
    try {
      const { taskId, pushes } = await runsAndIsDelivered(h);
      expect(
        new Webhook(SECRETS[0] as string).verify(pushes[2]?.body ?? "", pushes[2]?.headers as Record<string, string>),
      ).toMatchObject({ taskId, final: true });
      await expect.poll(() => measured.delivered.length).toBe(3);
      expect(measured).toMatchObject({ attempted: 3, failed: 0, givenUp: 0 });
    } finally {
      await dispatcher.close(1_000);
    }
  });
});
