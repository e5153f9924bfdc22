// The official A2A JS SDK (@a2a-js/sdk 1.3) client's four push-config methods against the reference
// server, over v1.0 JSON-RPC, v1.0 REST (HTTP+JSON) and v0.3 JSON-RPC, and the notifications its configs
// get at a real receiver: signed, in the dialect the config was made in, every event after the config.
import type { SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, createAuthenticatingFetchWithRetry } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { bearerInterceptor, taskStart } from "@a2a-partner/test-support/a2a-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pushSecret } from "../src/admin/push-secret-operations.ts";
import { loadConfig } from "../src/config.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { frontedServerPerSuite } from "./support/fronted-server.ts";
import { byTaskAndConfig, type PushReceiver, startPushReceiver } from "./support/push-receiver.ts";
import { eventually } from "./support/server-process.ts";

describe("the official @a2a-js/sdk client's push-config methods against the reference server (PGlite)", () => {
  const push = { ...loadConfig({}).push, allowedHosts: ["127.0.0.1"], maxRetryWaitMs: 1_000 };
  // Slow enough that a task is still running when a config is made for it.
  const bed = frontedServerPerSuite({ robotStepMs: 150, push });
  let receiver: PushReceiver;

  beforeAll(async () => {
    receiver = await startPushReceiver((await pushSecret(bed.database.db, { workspace: "demo" })).secret);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  async function client(transport: "JSONRPC" | "HTTP+JSON") {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        preferredTransports: [transport],
        clientConfig: { interceptors: [bearerInterceptor(bed.token)] },
      }),
    );
    return factory.createFromUrl(bed.front.url);
  }

  /** Starts a task (with `config` inline) and leaves after its first event; its id. */
  async function startAndLeave(sdk: Awaited<ReturnType<typeof client>>, text: string, inline?: string) {
    const start: SendMessageRequest = taskStart(text);
    if (inline) {
      start.configuration = {
        acceptedOutputModes: [],
        taskPushNotificationConfig: sdkConfig("", "", inline),
        historyLength: undefined,
        returnImmediately: false,
      };
    }
    const leave = new AbortController();
    let id = "";
    try {
      for await (const event of sdk.sendMessageStream(start, { signal: leave.signal })) {
        if (event.payload?.$case === "task") id = event.payload.value.id;
        leave.abort();
      }
    } catch (error) {
      expect((error as Error).name).toBe("AbortError");
    }
    expect(id).not.toBe("");
    return id;
  }

  function sdkConfig(taskId: string, id: string, path: string) {
    return {
      tenant: "",
      taskId,
      id,
      url: `${receiver.base}/${path}`,
      token: `token-${path}`,
      authentication: { scheme: "Bearer", credentials: `credentials-${path}` },
    };
  }

  /** Waits until the task ended and its last event reached the config at `path`; the seqs it got, deduplicated. */
  async function deliveredTo(taskId: string, path: string): Promise<number[]> {
    return eventually(
      async () => {
        const { rows } = await bed.database.db.query<{ terminal: boolean }>(
          "select terminal from tasks where id = $1",
          [taskId],
        );
        if (!rows[0]?.terminal) return undefined;
        const seqs = byTaskAndConfig(receiver.received)
          .get(`${taskId} /${path}`)
          ?.map((n) => n.seq);
        return seqs && seqs.at(-1) === (await loggedSeqs(bed.database.db, taskId)).at(-1) ? seqs : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: `the last event of ${taskId} at /${path}` },
    );
  }

  for (const transport of ["JSONRPC", "HTTP+JSON"] as const) {
    it(`creates, gets, lists and deletes over v1.0 ${transport}; its configs' receivers get every event after them`, async () => {
      const sdk = await client(transport);
      expect(sdk.protocolVersion).toBe("1.0");
      expect((await sdk.getAgentCard()).capabilities?.pushNotifications).toBe(true);
      const sent = vi.spyOn(globalThis, "fetch");

      const inlinePath = `${transport}-inline`;
      const inlineTask = await startAndLeave(sdk, "Restock aisle 5", inlinePath);
      const taskId = await startAndLeave(sdk, "Restock aisle 6");
      const kept = sdkConfig(taskId, "kept", `${transport}-kept`);
      const dropped = sdkConfig(taskId, "dropped", `${transport}-dropped`);
      expect(await sdk.createTaskPushNotificationConfig(kept)).toEqual(kept);
      const keptFrom = ((await loggedSeqs(bed.database.db, taskId)).at(-1) ?? 0) + 1;
      expect(await sdk.createTaskPushNotificationConfig(dropped)).toEqual(dropped);
      expect(await sdk.getTaskPushNotificationConfig({ tenant: "", taskId, id: "kept" })).toEqual(kept);
      const listed = await sdk.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" });
      expect(listed.configs).toEqual([kept, dropped]);
      await sdk.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "dropped" });
      await sdk.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "dropped" });
      const after = await sdk.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" });
      expect(after.configs).toEqual([kept]);
      await expect(
        sdk.getTaskPushNotificationConfig({ tenant: "", taskId: crypto.randomUUID(), id: "kept" }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);

      // Each call over the transport asked for: REST paths, or JSON-RPC posts to the endpoint.
      const urls = sent.mock.calls.map(([input]) => String(input instanceof Request ? input.url : input));
      sent.mockRestore();
      const configCalls = urls.filter((url) => !url.endsWith(":stream") && !url.endsWith("/a2a"));
      if (transport === "HTTP+JSON") {
        expect(configCalls.length).toBeGreaterThanOrEqual(7);
        for (const url of configCalls) expect(url).toMatch(/\/api\/v1\/a2a\/tasks\/[^/]+\/pushNotificationConfigs/);
      } else {
        expect(configCalls).toEqual([]);
      }

      // The inline config: every event of its task; the kept one: every event after it was made.
      const inline = await deliveredTo(inlineTask, inlinePath);
      expect(inline).toEqual(await loggedSeqs(bed.database.db, inlineTask));
      const seqs = await deliveredTo(taskId, kept.url.split("/").at(-1) as string);
      expect(seqs[0]).toBeLessThanOrEqual(keptFrom);
      const log = await loggedSeqs(bed.database.db, taskId);
      expect(seqs).toEqual(log.slice(log.indexOf(seqs[0] as number)));
      const notes = receiver.received.filter((n) => n.taskId === taskId && n.path === `/${transport}-kept`);
      for (const n of notes) expect([n.version, n.notificationToken]).toEqual(["1.0", `token-${transport}-kept`]);
      // A v1.0 StreamResponse, as the SDK reads its own stream frames.
      const last = notes.at(-1)?.payload as { statusUpdate?: { status?: { state?: string } } };
      expect(last.statusUpdate?.status?.state).toBe("TASK_STATE_COMPLETED");
      expect(receiver.unverified).toEqual([]);
    });
  }

  it("creates, gets, lists and deletes over v0.3 JSON-RPC (LegacyJsonRpcTransport); its receiver gets v0.3 events", async () => {
    const fetchImpl = createAuthenticatingFetchWithRetry(fetch, {
      headers: async () => ({ Authorization: `Bearer ${bed.token}` }),
      shouldRetryWithHeaders: async () => undefined,
    });
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${bed.front.url}/api/v1/a2a`, fetchImpl });
    const leave = new AbortController();
    let taskId = "";
    try {
      for await (const event of legacy.sendMessageStream(taskStart("Restock aisle 7"), { signal: leave.signal })) {
        if (event.payload?.$case === "task") taskId = event.payload.value.id;
        leave.abort();
      }
    } catch (error) {
      expect((error as Error).name).toBe("AbortError");
    }
    const config = sdkConfig(taskId, "legacy", "legacy");
    expect(await legacy.createTaskPushNotificationConfig(config)).toEqual(config);
    const from = ((await loggedSeqs(bed.database.db, taskId)).at(-1) ?? 0) + 1;
    expect(await legacy.getTaskPushNotificationConfig({ tenant: "", taskId, id: "legacy" })).toEqual(config);
    const listed = await legacy.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" });
    expect(listed.configs).toEqual([config]);
    const extra = sdkConfig(taskId, "extra", "legacy-extra");
    await legacy.createTaskPushNotificationConfig(extra);
    await legacy.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "extra" });
    await legacy.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "extra" });
    expect(
      (await legacy.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs,
    ).toEqual([config]);

    const seqs = await deliveredTo(taskId, "legacy");
    expect(seqs[0]).toBeLessThanOrEqual(from);
    const log = await loggedSeqs(bed.database.db, taskId);
    expect(seqs).toEqual(log.slice(log.indexOf(seqs[0] as number)));
    const notes = receiver.received.filter((n) => n.taskId === taskId && n.path === "/legacy");
    for (const n of notes) expect(n.version).toBe("0.3");
    const last = notes.at(-1)?.payload as { kind?: string; final?: boolean; status?: { state?: string } };
    expect(last).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    expect(receiver.unverified).toEqual([]);
  });
});
