import { describe, expect, it } from "vitest";
import type { A2APushOptions } from "../src/index.js";
import { A2A_LIMITS } from "../src/protocol/limits.js";
import { type Harness, harnessPerTest, readFrames, ScriptedExecutor, waitFor } from "./support/handler-harness.js";

/** The four push-config methods over JSON-RPC, in both dialects, against the in-memory push stores. */

const harness = harnessPerTest();
const NO_DISPATCH = { signingSecrets: async () => [], dispatch: false } as const;
const V1 = { "A2A-Version": "1.0" };
const SECRETS: A2APushOptions["signingSecrets"] = async () => ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];

async function rpc(h: Harness, method: string, params: unknown, options: { v1?: boolean; token?: string } = {}) {
  const res = await h.call(
    { jsonrpc: "2.0", id: "push", method, params },
    { token: options.token ?? "partner-a", ...(options.v1 ? { headers: V1 } : {}) },
  );
  return { status: res.status, body: await res.json() };
}

/** Starts a task of partner-a (or `token`) and reads it to its end; its id. */
async function startedTask(h: Harness, token = "partner-a"): Promise<string> {
  const frames = await readFrames(await h.stream(undefined, { token }));
  return frames[0]?.result.id as string;
}

/** The failing field of a -32602, in either dialect's error shape. */
function failingField(error: { data: unknown }): string | undefined {
  if (Array.isArray(error.data)) return error.data[1]?.fieldViolations?.[0]?.field;
  return (error.data as { field?: string }).field;
}

describe("push-config methods, v0.3 (tasks/pushNotificationConfig/*)", () => {
  it("sets, gets, lists, replaces and deletes a task's configs in the v0.3 shapes", async () => {
    const h = harness();
    const taskId = await startedTask(h);
    const url = "https://receiver.example.com/a2a";

    // Without an id the config takes the task's, so a retried set replaces rather than adds.
    const set = await rpc(h, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url } });
    expect(set.body.result).toEqual({ taskId, pushNotificationConfig: { id: taskId, url } });
    const again = await rpc(h, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url } });
    expect(again.body.result.pushNotificationConfig.id).toBe(taskId);

    const withAuth = {
      id: "ops",
      url: "https://ops.example.com/hook",
      token: "notify-me",
      authentication: { schemes: ["Bearer"], credentials: "receiver-secret" },
    };
    const second = await rpc(h, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: withAuth });
    expect(second.body.result).toEqual({ taskId, pushNotificationConfig: withAuth });

    expect((await rpc(h, "tasks/pushNotificationConfig/get", { id: taskId })).body.result).toEqual(set.body.result);
    const got = await rpc(h, "tasks/pushNotificationConfig/get", { id: taskId, pushNotificationConfigId: "ops" });
    expect(got.body.result).toEqual(second.body.result);
    const listed = await rpc(h, "tasks/pushNotificationConfig/list", { id: taskId });
    expect(listed.body.result).toEqual([set.body.result, second.body.result]);

    const moved = { ...withAuth, url: "https://ops.example.com/moved" };
    await rpc(h, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: moved });
    expect((await rpc(h, "tasks/pushNotificationConfig/list", { id: taskId })).body.result).toHaveLength(2);
    expect((await h.stores.push.configs.get("ws-a", taskId, "ops"))?.url).toBe(moved.url);

    // Delete answers null, and again (idempotent).
    for (let i = 0; i < 2; i++) {
      const deleted = await rpc(h, "tasks/pushNotificationConfig/delete", {
        id: taskId,
        pushNotificationConfigId: "ops",
      });
      expect(deleted.body).toMatchObject({ result: null });
    }
    expect((await rpc(h, "tasks/pushNotificationConfig/list", { id: taskId })).body.result).toEqual([set.body.result]);
    // Made in v0.3: its receiver gets v0.3 payloads.
    expect((await h.stores.push.configs.get("ws-a", taskId, taskId))?.version).toBe("0.3");
  });
});

describe("push-config methods, v1.0 (A2A-Version: 1.0)", () => {
  it("creates, gets, lists and deletes configs in the v1.0 shapes", async () => {
    const h = harness();
    const taskId = await startedTask(h);
    const config = {
      taskId,
      id: "ops",
      url: "https://ops.example.com/hook",
      token: "notify-me",
      authentication: { scheme: "Bearer", credentials: "receiver-secret" },
    };
    const created = await rpc(h, "CreateTaskPushNotificationConfig", { tenant: "", ...config }, { v1: true });
    expect(created.body.result).toEqual(config);
    // ProtoJSON's "" is "not given": no id means the task's.
    const plain = await rpc(
      h,
      "CreateTaskPushNotificationConfig",
      { taskId, id: "", url: "https://receiver.example.com/", token: "" },
      { v1: true },
    );
    expect(plain.body.result).toEqual({ id: taskId, taskId, url: "https://receiver.example.com/" });

    const got = await rpc(h, "GetTaskPushNotificationConfig", { taskId, id: "ops" }, { v1: true });
    expect(got.body.result).toEqual(config);
    const listed = await rpc(h, "ListTaskPushNotificationConfigs", { taskId, pageSize: 10 }, { v1: true });
    expect(listed.body.result).toEqual({ configs: [config, plain.body.result], nextPageToken: "" });
    const deleted = await rpc(h, "DeleteTaskPushNotificationConfig", { taskId, id: "ops" }, { v1: true });
    expect(deleted.body).toMatchObject({ result: {} });

    const stored = await h.stores.push.configs.get("ws-a", taskId, taskId);
    expect(stored).toMatchObject({ version: "1.0", url: "https://receiver.example.com/" });
    expect(stored?.token).toBeUndefined();
    // v0.3 reads the same config in its own shape.
    const v03 = await rpc(h, "tasks/pushNotificationConfig/get", { id: taskId });
    expect(v03.body.result).toEqual({
      taskId,
      pushNotificationConfig: { id: taskId, url: "https://receiver.example.com/" },
    });
  });

  it("reads a header-less flat config as v1.0, the way a generic v1.0 client sends it", async () => {
    const h = harness();
    const taskId = await startedTask(h);
    const created = await rpc(h, "CreateTaskPushNotificationConfig", { taskId, url: "https://receiver.example.com/" });
    expect(created.body.result).toEqual({ id: taskId, taskId, url: "https://receiver.example.com/" });
    const listed = await rpc(h, "ListTaskPushNotificationConfigs", { taskId });
    expect(listed.body.result.configs).toHaveLength(1);
  });
});

describe("push-config errors", () => {
  it("answers another workspace's task, and an unknown one, with -32001, leaving the configs alone", async () => {
    const h = harness();
    const taskId = await startedTask(h);
    await rpc(h, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url: "https://a.example/" } });
    const asB = { token: "partner-b" };
    const calls: Array<[string, unknown, boolean]> = [
      ["tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url: "https://b.example/" } }, false],
      ["tasks/pushNotificationConfig/get", { id: taskId }, false],
      ["tasks/pushNotificationConfig/list", { id: taskId }, false],
      ["tasks/pushNotificationConfig/delete", { id: taskId, pushNotificationConfigId: taskId }, false],
      ["CreateTaskPushNotificationConfig", { taskId, url: "https://b.example/" }, true],
      ["GetTaskPushNotificationConfig", { taskId, id: taskId }, true],
      ["ListTaskPushNotificationConfigs", { taskId }, true],
      ["DeleteTaskPushNotificationConfig", { taskId, id: taskId }, true],
    ];
    for (const [method, params, v1] of calls) {
      const { body } = await rpc(h, method, params, { ...asB, v1 });
      expect(body.error?.code, method).toBe(-32001);
      const unknown = await rpc(h, method, JSON.parse(JSON.stringify(params).replaceAll(taskId, "no-such-task")), {
        v1,
      });
      expect(unknown.body.error?.code, `${method} (unknown task)`).toBe(-32001);
    }
    expect(await h.stores.push.configs.list("ws-a", taskId)).toMatchObject([{ url: "https://a.example/" }]);

    const missing = await rpc(h, "tasks/pushNotificationConfig/get", { id: taskId, pushNotificationConfigId: "nope" });
    expect(missing.body.error).toMatchObject({ code: -32001, message: "Push notification config not found" });
    // Deleting a config that is not there is not an error.
    const gone = await rpc(h, "tasks/pushNotificationConfig/delete", { id: taskId, pushNotificationConfigId: "nope" });
    expect(gone.body.result).toBeNull();
  });

  it("looks the task up before the destination: a made-up or another workspace's task id is -32001, unchecked", async () => {
    const checked: string[] = [];
    const checkDestination = async (url: URL) => {
      checked.push(url.href);
      return "refused by the check";
    };
    const h = harness(undefined, { push: { signingSecrets: SECRETS, checkDestination } });
    const taskId = await startedTask(h);
    for (const id of ["no-such-task", taskId]) {
      const v03 = await rpc(
        h,
        "tasks/pushNotificationConfig/set",
        { taskId: id, pushNotificationConfig: { url: "http://internal.example/" } },
        { token: "partner-b" },
      );
      expect(v03.body.error, id).toMatchObject({ code: -32001 });
      const v1 = await rpc(
        h,
        "CreateTaskPushNotificationConfig",
        { taskId: id, url: "http://internal.example/" },
        { token: "partner-b", v1: true },
      );
      expect(v1.body.error?.code, id).toBe(-32001);
    }
    expect(checked).toEqual([]);
    // The task's own workspace gets the check's answer.
    const own = await rpc(
      h,
      "CreateTaskPushNotificationConfig",
      { taskId, url: "http://internal.example/" },
      { v1: true },
    );
    expect(own.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("refused by the check") });
    expect(checked).toEqual(["http://internal.example/"]);
  });

  it("refuses what breaks a bound or cannot be delivered with -32602 naming the field, in both dialects", async () => {
    const h = harness();
    const taskId = await startedTask(h);
    const L = A2A_LIMITS;
    const longUrl = `https://receiver.example.com/${"x".repeat(L.pushUrlLength)}`;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      // [the config's fields, the v0.3 field under pushNotificationConfig, what the message says]
      [{ url: longUrl }, "url", `at most ${L.pushUrlLength}`],
      [{ url: "ftp://receiver.example.com/" }, "url", "http: or https:"],
      [{ url: "not a url" }, "url", "http: or https:"],
      [{ url: "https://user:pw@receiver.example.com/" }, "url", "credentials"],
      [{ url: "https://receiver.example.com/\u0000" }, "url", "U+0000"],
      [
        { url: "https://r.example/", token: "t".repeat(L.pushSecretLength + 1) },
        "token",
        `at most ${L.pushSecretLength}`,
      ],
      [{ url: "https://r.example/", token: "line\r\nbreak" }, "token", "HTTP header"],
      [{ url: "https://r.example/", id: "c\u0000" }, "id", "U+0000"],
      [{ url: "https://r.example/", id: "i".repeat(L.idLength + 1) }, "id", `at most ${L.idLength}`],
      [{ url: "https://r.example/\ud800" }, "url", "well-formed"],
    ];
    for (const [config, field, says] of cases) {
      const v03 = await rpc(h, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: config });
      expect(v03.body.error?.code, `${field}: ${says}`).toBe(-32602);
      expect(failingField(v03.body.error)).toBe(`params.pushNotificationConfig.${field}`);
      expect(v03.body.error.message).toContain(says);
      const v1 = await rpc(h, "CreateTaskPushNotificationConfig", { taskId, ...config }, { v1: true });
      expect(v1.body.error?.code, `v1.0 ${field}: ${says}`).toBe(-32602);
      expect(failingField(v1.body.error)).toBe(`params.${field}`);
    }
    const credentials = { schemes: ["Bearer"], credentials: "c".repeat(L.pushSecretLength + 1) };
    const longCredentials = await rpc(h, "tasks/pushNotificationConfig/set", {
      taskId,
      pushNotificationConfig: { url: "https://r.example/", authentication: credentials },
    });
    expect(failingField(longCredentials.body.error)).toBe("params.pushNotificationConfig.authentication.credentials");
    const noScheme = await rpc(
      h,
      "CreateTaskPushNotificationConfig",
      { taskId, url: "https://r.example/", authentication: { credentials: "c" } },
      { v1: true },
    );
    expect(failingField(noScheme.body.error)).toBe("params.authentication.scheme");
    const missingUrl = await rpc(h, "CreateTaskPushNotificationConfig", { taskId, id: "c" }, { v1: true });
    expect(failingField(missingUrl.body.error)).toBe("params.url");
    expect(await h.stores.push.configs.list("ws-a", taskId)).toEqual([]);
  });

  it("holds a task to A2A_LIMITS.pushConfigsPerTask configs; replacing one at the bound is allowed", async () => {
    const h = harness();
    const taskId = await startedTask(h);
    const max = A2A_LIMITS.pushConfigsPerTask;
    for (let i = 0; i < max; i++) {
      const { body } = await rpc(
        h,
        "CreateTaskPushNotificationConfig",
        { taskId, id: `c${i}`, url: "https://r.example/" },
        { v1: true },
      );
      expect(body.result?.id).toBe(`c${i}`);
    }
    const over = await rpc(
      h,
      "CreateTaskPushNotificationConfig",
      { taskId, id: "one-more", url: "https://r.example/" },
      { v1: true },
    );
    expect(over.body.error.code).toBe(-32602);
    expect(failingField(over.body.error)).toBe("params.taskId");
    expect(over.body.error.message).toContain(`${max}`);
    const replaced = await rpc(
      h,
      "CreateTaskPushNotificationConfig",
      { taskId, id: "c0", url: "https://r.example/2" },
      { v1: true },
    );
    expect(replaced.body.result.url).toBe("https://r.example/2");

    // An embedder's own bound.
    const small = harness(undefined, { push: { signingSecrets: SECRETS, maxConfigsPerTask: 1 } });
    const other = await startedTask(small);
    await rpc(small, "CreateTaskPushNotificationConfig", { taskId: other, url: "https://r.example/" }, { v1: true });
    const second = await rpc(
      small,
      "CreateTaskPushNotificationConfig",
      { taskId: other, id: "x", url: "https://r.example/" },
      { v1: true },
    );
    expect(second.body.error.code).toBe(-32602);
  });

  it("refuses a destination the embedder's check refuses, with its reason on the url field", async () => {
    const checkDestination = async (url: URL) =>
      url.hostname === "10.0.0.7" ? "resolves to a private address (10.0.0.7)" : undefined;
    const h = harness(undefined, { push: { signingSecrets: SECRETS, checkDestination } });
    const taskId = await startedTask(h);
    const v03 = await rpc(h, "tasks/pushNotificationConfig/set", {
      taskId,
      pushNotificationConfig: { url: "http://10.0.0.7/hook" },
    });
    expect(v03.body.error).toMatchObject({
      code: -32602,
      data: { field: "params.pushNotificationConfig.url" },
    });
    expect(v03.body.error.message).toContain("resolves to a private address (10.0.0.7)");
    const v1 = await rpc(h, "CreateTaskPushNotificationConfig", { taskId, url: "http://10.0.0.7/hook" }, { v1: true });
    expect(failingField(v1.body.error)).toBe("params.url");
    const fine = await rpc(h, "CreateTaskPushNotificationConfig", { taskId, url: "https://ok.example/" }, { v1: true });
    expect(fine.body.result.url).toBe("https://ok.example/");
  });

  it("answers -32003 without reading the params when push is off, and the handler says it is off", async () => {
    const off = harness(undefined, { push: false });
    const stores = harness().stores;
    const { push: _push, ...withoutPush } = stores;
    const noStores = harness(undefined, { stores: withoutPush });
    for (const h of [off, noStores]) {
      expect(h.handler.pushNotifications).toBe(false);
      for (const method of [
        "CreateTaskPushNotificationConfig",
        "tasks/pushNotificationConfig/set",
        "GetTaskPushNotificationConfig",
        "tasks/pushNotificationConfig/get",
        "ListTaskPushNotificationConfigs",
        "tasks/pushNotificationConfig/list",
        "DeleteTaskPushNotificationConfig",
        "tasks/pushNotificationConfig/delete",
      ]) {
        // Params that would be -32602 if they were read.
        const { body } = await rpc(h, method, { taskId: 42 });
        expect(body.error?.code, method).toBe(-32003);
        expect(body.error.message).toContain(method);
      }
    }
    expect(harness().handler.pushNotifications).toBe(true);
  });
});

describe("deliveries of a config made through the methods", () => {
  it("gets one delivery for each event the task commits after the config, in the config's version", async () => {
    // The test claims the deliveries itself: no dispatcher of the handler's takes them first.
    const h = harness(new ScriptedExecutor(undefined, undefined, true), { push: { ...NO_DISPATCH } });
    const res = await h.stream();
    const release = h.executor.release(); // the first progress update (seq 2), before any config
    const [first] = await readFrames(res, 2);
    await release;
    const taskId = first?.result.id as string;
    await rpc(h, "CreateTaskPushNotificationConfig", { taskId, url: "https://r.example/" }, { v1: true });
    await h.executor.release(); // seq 3
    await h.executor.release(); // the end: seq 4
    await waitFor(async () => (await h.stores.tasks.get("ws-a", taskId))?.task.status.state === "TASK_STATE_COMPLETED");
    const lastSeq = (await h.stores.tasks.get("ws-a", taskId))?.lastSeq as number;

    const seqs: number[] = [];
    const owner = "dispatcher-test";
    let [delivery] = await h.stores.push.deliveries.claim(owner, 10, 60_000);
    while (delivery) {
      expect(delivery.config.version).toBe("1.0");
      seqs.push(delivery.event.seq);
      delivery = await h.stores.push.deliveries.complete(owner, delivery, 60_000);
    }
    expect(lastSeq).toBe(4);
    expect(seqs).toEqual([3, 4]);
  });
});
