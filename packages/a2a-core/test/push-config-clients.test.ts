import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, createAuthenticatingFetchWithRetry } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { PushNotificationNotSupportedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { bearerInterceptor, taskStart } from "@a2a-partner/test-support/a2a-sdk";
import { describe, expect, it, vi } from "vitest";
import {
  type A2AHandlerOptions,
  agentCardForRequest,
  createA2AHandler,
  createInMemoryStores,
  type InMemoryStores,
} from "../src/index.js";
import { toNodeHandler } from "../src/node.js";
import { authenticateTestToken, closedAfterEach, ScriptedExecutor } from "./support/handler-harness.js";

/**
 * The push-config routes of HTTP+JSON, and the official @a2a-js/sdk 1.3.0 client's four push-config methods
 * over each of its transports (v1.0 JSON-RPC, v1.0 REST, v0.3 JSON-RPC), against a real node:http server.
 */

interface Server {
  base: string;
  endpoint: string;
  stores: InMemoryStores;
}

const closing = closedAfterEach();

async function serve(options: Partial<A2AHandlerOptions> = {}): Promise<Server> {
  const stores = createInMemoryStores();
  const handler = createA2AHandler({
    stores,
    executor: new ScriptedExecutor(),
    authenticate: authenticateTestToken,
    logger: { info() {}, warn() {}, error() {} },
    ...options,
  });
  const node = toNodeHandler(handler, { basePath: "/a2a" });
  let base = "";
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/.well-known/agent-card.json")) {
      const headers = new Headers(req.headers as Record<string, string>);
      const card = agentCardForRequest(headers, {
        name: "push test",
        description: "push test",
        endpointUrl: `${base}/a2a`,
        httpJsonUrl: `${base}/a2a`,
        version: "1",
        skills: [],
        pushNotifications: handler.pushNotifications,
      });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(card));
      return;
    }
    void node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closing.push(async () => {
    await handler.close({ graceMs: 0 });
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { base, endpoint: `${base}/a2a`, stores };
}

/** A finished task of workspace ws-a (partner-a), started over HTTP+JSON; its id. */
async function taskOf(server: Server, token = "partner-a"): Promise<string> {
  const res = await fetch(`${server.endpoint}/message:stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "restock" }] },
      metadata: { storeId: "store-001" },
    }),
  });
  const text = await res.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? "{}").task.id;
}

function sdkConfig(taskId: string, id: string) {
  return {
    tenant: "",
    taskId,
    id,
    url: `https://receiver.example.com/${id}`,
    token: `token-${id}`,
    authentication: { scheme: "Bearer", credentials: `credentials-${id}` },
  };
}

describe("the HTTP+JSON push-config routes", () => {
  it("create (POST), list and get (GET) and delete (DELETE) a task's configs in the v1.0 shapes", async () => {
    const server = await serve();
    const taskId = await taskOf(server);
    const call = (path: string, init: RequestInit & { token?: string } = {}) =>
      fetch(`${server.endpoint}/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs${path}`, {
        ...init,
        headers: { authorization: `Bearer ${init.token ?? "partner-a"}`, "content-type": "application/json" },
      });
    // The path names the task, over whatever the body says.
    const body = { taskId: "elsewhere", id: "ops/1", url: "https://receiver.example.com/hook", token: "t" };
    const created = await call("", { method: "POST", body: JSON.stringify(body) });
    expect(created.status).toBe(200);
    const config = { ...body, taskId };
    expect(await created.json()).toEqual(config);
    expect(await (await call("")).json()).toEqual({ configs: [config], nextPageToken: "" });
    const got = await call(`/${encodeURIComponent("ops/1")}`);
    expect(await got.json()).toEqual(config);

    const other = await call("", { token: "partner-b" });
    expect(other.status).toBe(404);
    expect((await other.json()).error.details[0].reason).toBe("TASK_NOT_FOUND");
    const bad = await call("", { method: "POST", body: JSON.stringify({ url: "gopher://x" }) });
    expect(bad.status).toBe(400);
    const violation = (await bad.json()).error.details[1].fieldViolations[0];
    expect(violation.field).toBe("params.url");
    const notJson = await call("", { method: "POST", body: "{" });
    expect((await notJson.json()).error.details[0].reason).toBe("PARSE_ERROR");
    const page = await fetch(`${server.endpoint}/tasks/${taskId}/pushNotificationConfigs?pageToken=next`, {
      headers: { authorization: "Bearer partner-a" },
    });
    expect(page.status).toBe(400);

    for (let i = 0; i < 2; i++) {
      const deleted = await call(`/${encodeURIComponent("ops/1")}`, { method: "DELETE" });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({});
    }
    expect(await server.stores.push.configs.list("ws-a", taskId)).toEqual([]);
  });

  it("answers 400 PUSH_NOTIFICATION_NOT_SUPPORTED on every push-config route when push is off", async () => {
    const server = await serve({ push: false });
    for (const [path, method] of [
      ["/pushNotificationConfigs", "POST"],
      ["/pushNotificationConfigs", "GET"],
      ["/pushNotificationConfigs/c1", "GET"],
      ["/pushNotificationConfigs/c1", "DELETE"],
    ] as const) {
      const res = await fetch(`${server.endpoint}/tasks/t1${path}`, {
        method,
        headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect((await res.json()).error.details[0].reason).toBe("PUSH_NOTIFICATION_NOT_SUPPORTED");
    }
  });
});

describe("the official @a2a-js/sdk client's push-config methods", () => {
  async function clientOver(server: Server, transport: "JSONRPC" | "HTTP+JSON", token = "partner-a") {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        preferredTransports: [transport],
        clientConfig: { interceptors: [bearerInterceptor(token)] },
      }),
    );
    return factory.createFromUrl(server.base);
  }

  for (const transport of ["JSONRPC", "HTTP+JSON"] as const) {
    it(`create, get, list and delete over v1.0 ${transport}`, async () => {
      const server = await serve();
      const taskId = await taskOf(server);
      const client = await clientOver(server, transport);
      expect(client.protocolVersion).toBe("1.0");
      const sent = vi.spyOn(globalThis, "fetch");
      const first = sdkConfig(taskId, "first");
      expect(await client.createTaskPushNotificationConfig(first)).toEqual(first);
      const second = sdkConfig(taskId, "second");
      await client.createTaskPushNotificationConfig(second);
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId, id: "second" })).toEqual(second);
      const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" });
      expect(listed.configs).toEqual([first, second]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "first" });
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "first" });
      expect((await server.stores.push.configs.list("ws-a", taskId))?.map((c) => [c.id, c.version])).toEqual([
        ["second", "1.0"],
      ]);
      // Each over the transport asked for: REST paths, or JSON-RPC posts to the endpoint.
      const urls = sent.mock.calls.map(([input]) => String(input instanceof Request ? input.url : input));
      sent.mockRestore();
      expect(urls).toHaveLength(6);
      for (const url of urls) {
        if (transport === "HTTP+JSON") expect(url).toContain(`/a2a/tasks/${taskId}/pushNotificationConfigs`);
        else expect(url).toBe(server.endpoint);
      }

      const stranger = await clientOver(server, transport, "partner-b");
      await expect(stranger.getTaskPushNotificationConfig({ tenant: "", taskId, id: "second" })).rejects.toBeInstanceOf(
        TaskNotFoundError,
      );
    });
  }

  it("create, get, list and delete over v0.3 JSON-RPC (LegacyJsonRpcTransport)", async () => {
    const server = await serve();
    const taskId = await taskOf(server);
    const fetchImpl = createAuthenticatingFetchWithRetry(fetch, {
      headers: async () => ({ Authorization: "Bearer partner-a" }),
      shouldRetryWithHeaders: async () => undefined,
    });
    const legacy = new LegacyJsonRpcTransport({ endpoint: server.endpoint, fetchImpl });
    const config = sdkConfig(taskId, "legacy");
    expect(await legacy.createTaskPushNotificationConfig(config)).toEqual(config);
    expect(await legacy.getTaskPushNotificationConfig({ tenant: "", taskId, id: "legacy" })).toEqual(config);
    const listed = await legacy.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" });
    expect(listed.configs).toEqual([config]);
    await legacy.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "legacy" });
    expect(await server.stores.push.configs.list("ws-a", taskId)).toEqual([]);
    // Made in v0.3: its receiver gets v0.3 payloads.
    await legacy.createTaskPushNotificationConfig(config);
    expect((await server.stores.push.configs.get("ws-a", taskId, "legacy"))?.version).toBe("0.3");

    const off = await serve({ push: false });
    const refused = new LegacyJsonRpcTransport({ endpoint: off.endpoint, fetchImpl });
    await expect(refused.createTaskPushNotificationConfig(config)).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
  });

  it("reads the card: push on says pushNotifications, push off makes the client refuse before calling", async () => {
    const on = await clientOver(await serve(), "JSONRPC");
    expect((await on.getAgentCard()).capabilities?.pushNotifications).toBe(true);
    const offServer = await serve({ push: false });
    const off = await clientOver(offServer, "JSONRPC");
    expect((await off.getAgentCard()).capabilities?.pushNotifications).toBe(false);
    const taskId = await taskOf(offServer);
    expect(() => off.createTaskPushNotificationConfig(sdkConfig(taskId, "x"))).toThrow(
      PushNotificationNotSupportedError,
    );
  });

  it("sends a start's config (configuration.taskPushNotificationConfig), stored with the task", async () => {
    const server = await serve();
    const client = await clientOver(server, "JSONRPC");
    const start: SendMessageRequest = {
      ...taskStart("restock"),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: sdkConfig("", "inline"),
        historyLength: undefined,
        returnImmediately: false,
      },
    };
    let taskId = "";
    for await (const event of client.sendMessageStream(start)) {
      if (event.payload?.$case === "task") taskId = event.payload.value.id;
    }
    expect(await server.stores.push.configs.get("ws-a", taskId, "inline")).toMatchObject({
      url: "https://receiver.example.com/inline",
      token: "token-inline",
      authentication: { schemes: ["Bearer"], credentials: "credentials-inline" },
      version: "1.0",
    });
  });
});
