import { installTestTelemetry } from "@a2a-partner/test-support/telemetry";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { guardedPushFetch } from "../src/node.js";
import { storeFixtures } from "../src/testing/store-fixtures.js";
import { receiverPerTest } from "./support/push-receiver.js";
import { pushWorld, SECRETS, WORKSPACE } from "./support/push-world.js";

// Registered before any dispatcher exists, as an application registers its SDK first.
const otel = installTestTelemetry({ traces: false });
afterAll(() => otel.shutdown());

const receiver = receiverPerTest();

/** Both ways a delivery is sent: a plain `fetch`, and the Node entry's undici `request` carried by guardedPushFetch. */
const senders: Array<[string, typeof fetch | undefined]> = [
  ["the runtime's fetch", undefined],
  ["guardedPushFetch's undici request", guardedPushFetch({ allowedHosts: ["127.0.0.1"] })],
];

/** The `webhook-id` and body's status `percent` of each request, in arrival order. */
function arrivals() {
  return receiver.received.map((push) => ({
    id: push.headers["webhook-id"],
    percent: (JSON.parse(push.body) as { metadata?: { percent?: number } }).metadata?.percent,
    answer: typeof push.answer === "string" ? push.answer : push.answer.status,
  }));
}

describe.each(senders)("the push dispatcher, against a real receiver, sending with %s", (_sender, send) => {
  const world = pushWorld({ send });

  it("delivers each event signed with every secret (either verifies), with the config's token and Authorization", async () => {
    const { task } = await world.taskWithConfig({
      url: receiver.url("/hook?tenant=7"),
      token: "tok-123",
      authentication: { schemes: ["Bearer"], credentials: "cred-456" },
    });
    world.dispatcher();
    const update = await world.update(task, 50);

    const [push] = await receiver.waitFor(1);
    expect(push?.path).toBe("/hook?tenant=7");
    expect(push?.headers).toMatchObject({
      "content-type": "application/json",
      "x-a2a-notification-token": "tok-123",
      authorization: "Bearer cred-456",
    });
    expect(push?.headers["user-agent"]).toMatch(/^a2a-partner-push\//);
    expect(push?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    const headers = push?.headers as Record<string, string>;
    // The v0.3 payload: the event's result exactly as a v0.3 stream frame carries it.
    const timestamp = "statusUpdate" in update.result ? update.result.statusUpdate.status.timestamp : undefined;
    const v03 = {
      kind: "status-update",
      taskId: task.id,
      contextId: task.contextId,
      status: { state: "working", timestamp },
      final: false,
      metadata: { robot: "robot-1", percent: 50 },
    };
    for (const secret of SECRETS) {
      expect(new Webhook(secret).verify(push?.body ?? "", headers)).toEqual(v03);
    }
    const stranger = `whsec_${btoa("not-this-workspace-secret-0123")}`;
    expect(() => new Webhook(stranger).verify(push?.body ?? "", headers)).toThrow(/No matching signature/);
  });

  it("sends a config made in v1.0 the v1.0 StreamResponse, and every event in order", async () => {
    const { task } = await world.taskWithConfig({ url: receiver.url(), version: "1.0" });
    world.dispatcher();
    await world.update(task, 25);
    await world.finish(task);

    await receiver.waitFor(2);
    const [first, last] = receiver.bodies() as Array<{ statusUpdate?: Record<string, unknown> }>;
    expect(first?.statusUpdate).toMatchObject({ taskId: task.id, status: { state: "TASK_STATE_WORKING" } });
    expect(first?.statusUpdate?.metadata).toEqual({ robot: "robot-1", percent: 25 });
    expect(last?.statusUpdate).toMatchObject({ taskId: task.id, status: { state: "TASK_STATE_COMPLETED" } });
    expect(first).not.toHaveProperty("kind");
  });

  it("sends a start's inline configs the task itself (seq 1): the Task in v0.3, { task } in v1.0", async () => {
    const fixtures = storeFixtures();
    const start = fixtures.newTask(WORKSPACE);
    const config = (id: string, version: "0.3" | "1.0") => ({
      id,
      taskId: start.task.id,
      url: receiver.url(`/${id}`),
      version,
      createdAt: new Date().toISOString(),
    });
    await world.stores.tasks.create({ ...start, pushConfigs: [config("old", "0.3"), config("new", "1.0")] });
    world.dispatcher();

    await receiver.waitFor(2);
    const byPath = Object.fromEntries(receiver.received.map((push) => [push.path, JSON.parse(push.body)]));
    expect(byPath["/old"]).toMatchObject({ kind: "task", id: start.task.id, status: { state: "working" } });
    expect(byPath["/new"]).toMatchObject({ task: { id: start.task.id, status: { state: "TASK_STATE_WORKING" } } });
  });

  it("retries a 500, and sends event 3 only after event 2 succeeded", async () => {
    receiver.answers.push({ status: 500 }, { status: 500 });
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    await world.update(task, 10);
    await world.update(task, 20);
    world.dispatcher();

    await receiver.waitFor(4);
    const seen = arrivals();
    expect(seen.map(({ percent, answer }) => [percent, answer])).toEqual([
      [10, 500],
      [10, 500],
      [10, 200],
      [20, 200],
    ]);
    // Every attempt of one event carries the same webhook-id (the receiver drops duplicates by it).
    expect(new Set(seen.slice(0, 3).map(({ id }) => id)).size).toBe(1);
    expect(seen[3]?.id).not.toBe(seen[0]?.id);
  });

  it("waits as long as Retry-After asks", async () => {
    receiver.answers.push({ status: 503, headers: { "retry-after": "1" } });
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    world.dispatcher();
    await world.update(task, 10);

    const [refused, accepted] = await receiver.waitFor(2);
    expect((accepted?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("gives up on a receiver that does not answer in time, and tries again", async () => {
    receiver.answers.push("hang");
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    const timedOut = await otel.sum("a2a.push.failures", { reason: "timeout" });
    world.dispatcher({ attemptTimeoutMs: 300 });
    await world.update(task, 10);

    const [hung, answered] = await receiver.waitFor(2);
    expect((answered?.at ?? 0) - (hung?.at ?? 0)).toBeGreaterThanOrEqual(250);
    expect(answered?.headers["webhook-id"]).toBe(hung?.headers["webhook-id"]);
    expect(await otel.sum("a2a.push.failures", { reason: "timeout" })).toBe(timedOut + 1);
  });

  it("retries after the receiver drops the connection", async () => {
    receiver.answers.push("drop");
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    const network = await otel.sum("a2a.push.failures", { reason: "network" });
    world.dispatcher();
    await world.update(task, 10);

    await receiver.waitFor(2);
    expect(arrivals().map(({ answer }) => answer)).toEqual(["drop", 200]);
    expect(await otel.sum("a2a.push.failures", { reason: "network" })).toBe(network + 1);
  });

  it("gives up past the horizon: kept as given up, one warning without URL or token, and the next event goes", async () => {
    receiver.answers.push({ status: 500 }, { status: 500 });
    const { task, config } = await world.taskWithConfig({
      url: receiver.url("/hook?key=secret-query"),
      token: "tok-9",
    });
    const givenUp = await otel.sum("a2a.push.given_up");
    // Waits of 0.3 × 1 s, then 0.3 × 2 s: the second retry would fall past a 500 ms horizon.
    world.dispatcher({ horizonMs: 500, random: () => 0.3 });
    const doomed = await world.update(task, 10);
    await world.update(task, 20);

    await receiver.waitFor(3);
    expect(arrivals().map(({ percent, answer }) => [percent, answer])).toEqual([
      [10, 500],
      [10, 500],
      [20, 200],
    ]);
    expect(world.stores.tasks.push.givenUp).toEqual([
      expect.objectContaining({ taskId: task.id, configId: config.id, seq: doomed.seq, reason: "HTTP 500" }),
    ]);
    const warnings = world.lines.filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      {
        level: "warn",
        msg: expect.stringContaining("given up"),
        obj: { taskId: task.id, configId: config.id, seq: doomed.seq, attempts: 2, lastError: "HTTP 500" },
      },
    ]);
    expect(JSON.stringify(world.lines)).not.toMatch(/secret-query|tok-9|127\.0\.0\.1/);
    expect(await otel.sum("a2a.push.given_up")).toBe(givenUp + 1);
  });

  it("never sends unsigned: a workspace without a secret waits (logged once) and goes once it has one", async () => {
    let secrets: string[] = [];
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    world.dispatcher({ signingSecrets: async () => secrets, random: () => 0.05 });
    await world.update(task, 10);

    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received).toEqual([]);
    const told = world.lines.filter((line) => line.msg?.includes("no signing secret"));
    expect(told).toHaveLength(1);
    expect(told[0]?.obj).toEqual({ workspaceId: WORKSPACE });

    secrets = [SECRETS[0] as string];
    const [push] = await receiver.waitFor(1);
    expect(
      new Webhook(SECRETS[0] as string).verify(push?.body ?? "", push?.headers as Record<string, string>),
    ).toBeTruthy();
  });

  it("counts attempts, deliveries, failures by reason and the lag of each delivery", async () => {
    const before = {
      attempts: await otel.sum("a2a.push.attempts"),
      delivered: await otel.sum("a2a.push.delivered"),
      status: await otel.sum("a2a.push.failures", { reason: "status" }),
      lag: await otel.count("a2a.push.lag"),
    };
    receiver.answers.push({ status: 502 });
    const { task } = await world.taskWithConfig({ url: receiver.url() });
    world.dispatcher();
    await world.update(task, 10);
    await world.update(task, 20);
    await receiver.waitFor(3);
    // The last answer is recorded just after the receiver saw the request.
    await expect.poll(() => otel.sum("a2a.push.delivered")).toBe(before.delivered + 2);

    expect(await otel.sum("a2a.push.attempts")).toBe(before.attempts + 3);
    expect(await otel.sum("a2a.push.failures", { reason: "status" })).toBe(before.status + 1);
    expect(await otel.count("a2a.push.lag")).toBe(before.lag + 2);
    const [lag] = await otel.histogram("a2a.push.lag");
    expect(lag?.value.min).toBeGreaterThanOrEqual(0);
  });
});
