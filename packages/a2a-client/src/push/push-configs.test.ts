import { toV1Error } from "@a2a-partner/a2a-core/protocol";
import { http } from "msw";
import { describe, expect, it } from "vitest";
import {
  BASE_URL,
  jsonRpcErrorResponse,
  jsonRpcResultResponse,
  sseResponse,
  task,
  toV1StreamResult,
} from "../../test/support/fixtures.js";
import { mockEndpoint, testClient } from "../../test/support/mock-endpoint.js";
import {
  InvalidParamsError,
  InvalidResponseError,
  PushNotificationNotSupportedError,
  TaskNotFoundError,
  type TaskPushNotificationConfig,
} from "../index.js";

const { server, script } = mockEndpoint();

const RECEIVER = "https://hooks.partner.example/a2a";
const input = { url: RECEIVER, token: "tok-1", authentication: { scheme: "Bearer", credentials: "cred-1" } };
/** What every binding and dialect must hand back for the config above, created on task-1 with no id. */
const expected: TaskPushNotificationConfig = { taskId: "task-1", id: "task-1", ...input };

/** The v0.3 wire shape of `expected` (what a v0.3 server answers). */
const v03Config = {
  taskId: "task-1",
  pushNotificationConfig: {
    id: "task-1",
    url: RECEIVER,
    token: "tok-1",
    authentication: { schemes: ["Bearer"], credentials: "cred-1" },
  },
};
/** What the client sends for `input` in v0.3: no id (the server gives the config the task's). */
const { id: _sentId, ...v03Sent } = v03Config.pushNotificationConfig;
/** The v1.0 wire shape of `expected`, as @a2a-js/sdk 1.3.0 reads and writes it. */
const v1Config = {
  taskId: "task-1",
  id: "task-1",
  url: RECEIVER,
  token: "tok-1",
  authentication: { scheme: "Bearer", credentials: "cred-1" },
};

describe("push configs over JSON-RPC, A2A v0.3", () => {
  it("creates, gets, lists and deletes with the v0.3 params and returns one typed shape", async () => {
    const answers = [v03Config, v03Config, [v03Config, { ...v03Config, pushNotificationConfig: { url: RECEIVER } }]];
    const seen = script((n) => jsonRpcResultResponse(answers[n] ?? null));
    const { client } = testClient();

    expect(await client.createTaskPushNotificationConfig("task-1", input)).toEqual(expected);
    expect(await client.getTaskPushNotificationConfig("task-1", "task-1")).toEqual(expected);
    // A config without an id is the task's (A2A's rule), and optional fields stay absent.
    expect(await client.listTaskPushNotificationConfigs("task-1")).toEqual([
      expected,
      { taskId: "task-1", id: "task-1", url: RECEIVER },
    ]);
    await expect(client.deleteTaskPushNotificationConfig("task-1", "task-1")).resolves.toBeUndefined();

    expect(seen.map((r) => [r.method, r.params])).toEqual([
      ["CreateTaskPushNotificationConfig", { taskId: "task-1", pushNotificationConfig: v03Sent }],
      ["GetTaskPushNotificationConfig", { id: "task-1", pushNotificationConfigId: "task-1" }],
      ["ListTaskPushNotificationConfigs", { id: "task-1" }],
      ["DeleteTaskPushNotificationConfig", { id: "task-1", pushNotificationConfigId: "task-1" }],
    ]);
  });

  it("uses the slash aliases for older servers", async () => {
    const seen = script((n) => jsonRpcResultResponse([v03Config, v03Config, [], null][n]));
    const { client } = testClient({ methodNames: "alias" });
    await client.createTaskPushNotificationConfig("task-1", input);
    await client.getTaskPushNotificationConfig("task-1", "task-1");
    await client.listTaskPushNotificationConfigs("task-1");
    await client.deleteTaskPushNotificationConfig("task-1", "task-1");
    expect(seen.map((r) => r.method)).toEqual([
      "tasks/pushNotificationConfig/set",
      "tasks/pushNotificationConfig/get",
      "tasks/pushNotificationConfig/list",
      "tasks/pushNotificationConfig/delete",
    ]);
  });

  it("throws PushNotificationNotSupportedError (-32003) from a server that sends none", async () => {
    script(() => jsonRpcErrorResponse(-32003, "Push notifications are not supported"));
    const { client } = testClient();
    const error = await client.createTaskPushNotificationConfig("task-1", input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushNotificationNotSupportedError);
    expect((error as Error).message).toMatch(/not supported/);
    await expect(client.listTaskPushNotificationConfigs("task-1")).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
  });

  it("throws the server's refusals typed: an unknown task, a url it will not call", async () => {
    script((n) =>
      n === 0
        ? jsonRpcErrorResponse(-32001, "Task not found")
        : jsonRpcErrorResponse(-32602, "Invalid params", 200, { field: "params.pushNotificationConfig.url" }),
    );
    const { client } = testClient();
    await expect(client.getTaskPushNotificationConfig("nope", "c")).rejects.toBeInstanceOf(TaskNotFoundError);
    const refused = await client
      .createTaskPushNotificationConfig("task-1", { url: "http://10.0.0.1/hook" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidParamsError);
    expect((refused as InvalidParamsError).data).toEqual({ field: "params.pushNotificationConfig.url" });
  });

  it("refuses what the server would refuse anyway before sending anything", async () => {
    const seen = script(() => jsonRpcResultResponse(v03Config));
    const { client } = testClient();
    const bad: Array<[string, () => Promise<unknown>]> = [
      ["ftp url", () => client.createTaskPushNotificationConfig("task-1", { url: "ftp://files.example/x" })],
      ["relative url", () => client.createTaskPushNotificationConfig("task-1", { url: "/hook" })],
      [
        "long url",
        () => client.createTaskPushNotificationConfig("task-1", { url: `https://h.example/${"a".repeat(2048)}` }),
      ],
      ["empty token", () => client.createTaskPushNotificationConfig("task-1", { url: RECEIVER, token: "" })],
      [
        "no scheme",
        () => client.createTaskPushNotificationConfig("task-1", { url: RECEIVER, authentication: { scheme: "" } }),
      ],
      ["no task", () => client.getTaskPushNotificationConfig("", "c")],
      ["no config id", () => client.deleteTaskPushNotificationConfig("task-1", "")],
    ];
    for (const [what, call] of bad) await expect(call(), what).rejects.toThrow(TypeError);
    expect(seen).toHaveLength(0);
  });

  it("rejects an answer that is not a config, or a config of another task", async () => {
    script((n) => jsonRpcResultResponse(n === 0 ? { url: 5 } : { ...v03Config, taskId: "task-2" }));
    const { client } = testClient();
    await expect(client.getTaskPushNotificationConfig("task-1", "c")).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(client.getTaskPushNotificationConfig("task-1", "c")).rejects.toThrow(/task-2/);
  });

  it("sends an inline config with a start as configuration.pushNotificationConfig", async () => {
    const seen = script(() => sseResponse([], "close"));
    const { client } = testClient({ maxResumeAttempts: 0 });
    const stream = client.sendStreamingMessage({ text: "Restock", storeId: "s-1", pushNotificationConfig: input });
    await stream.finished.catch(() => undefined);
    expect(seen[0]?.params.configuration).toEqual({ pushNotificationConfig: v03Sent });
    expect(() =>
      client.sendStreamingMessage({ text: "x", storeId: "s-1", pushNotificationConfig: { url: "file:///etc" } }),
    ).toThrow(/pushNotificationConfig\.url/);
  });
});

describe("push configs over JSON-RPC, A2A v1.0", () => {
  it("sends the flat v1.0 params and reads the v1.0 answers into the same typed shape", async () => {
    const pages = [
      { configs: [v1Config], nextPageToken: "p2" },
      // ProtoJSON leaves out empty fields: no taskId, no token on the last page.
      { configs: [{ id: "second", url: RECEIVER }] },
    ];
    const answers = [v1Config, v1Config, ...pages, {}];
    const seen = script((n) => jsonRpcResultResponse(answers[n]));
    const { client } = testClient({ protocolVersion: "1.0" });

    expect(await client.createTaskPushNotificationConfig("task-1", input)).toEqual(expected);
    expect(await client.getTaskPushNotificationConfig("task-1", "task-1")).toEqual(expected);
    expect(await client.listTaskPushNotificationConfigs("task-1")).toEqual([
      expected,
      { taskId: "task-1", id: "second", url: RECEIVER },
    ]);
    await client.deleteTaskPushNotificationConfig("task-1", "task-1");

    const { id: _id, ...createParams } = v1Config;
    expect(seen.map((r) => [r.method, r.params])).toEqual([
      ["CreateTaskPushNotificationConfig", createParams],
      ["GetTaskPushNotificationConfig", { taskId: "task-1", id: "task-1" }],
      ["ListTaskPushNotificationConfigs", { taskId: "task-1" }],
      ["ListTaskPushNotificationConfigs", { taskId: "task-1", pageToken: "p2" }],
      ["DeleteTaskPushNotificationConfig", { taskId: "task-1", id: "task-1" }],
    ]);
    expect(seen.every((r) => r.headers.get("a2a-version") === "1.0")).toBe(true);
  });

  it("maps the v1.0 error to PushNotificationNotSupportedError", async () => {
    const error = toV1Error({ code: -32003, message: "Push notifications are not supported" });
    script(() => jsonRpcErrorResponse(-32003, error.message, 200, error.data));
    const { client } = testClient({ protocolVersion: "1.0" });
    await expect(client.getTaskPushNotificationConfig("task-1", "c")).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
  });

  it("sends an inline config with a start as configuration.taskPushNotificationConfig", async () => {
    const seen = script(() => sseResponse([], "close"));
    const { client } = testClient({ protocolVersion: "1.0", maxResumeAttempts: 0 });
    const stream = client.sendStreamingMessage({ text: "Restock", storeId: "s-1", pushNotificationConfig: input });
    await stream.finished.catch(() => undefined);
    const { taskId: _taskId, id: _id, ...inline } = v1Config;
    expect(seen[0]?.params.configuration).toEqual({ taskPushNotificationConfig: inline });
  });
});

describe("push configs over HTTP+JSON", () => {
  const base = `${BASE_URL}/api/v1/a2a`;
  const configs = `${base}/tasks/task%201/pushNotificationConfigs`;

  /** Records every request to the push-config routes and answers with `respond`. */
  function routes(respond: (request: Request, body: string) => Response) {
    const seen: Array<{ verb: string; url: string; body: string; version: string | null }> = [];
    const record = async ({ request }: { request: Request }) => {
      const body = await request.text();
      seen.push({ verb: request.method, url: request.url, body, version: request.headers.get("a2a-version") });
      return respond(request, body);
    };
    server.use(
      http.post(`${base}/tasks/:task/pushNotificationConfigs`, record),
      http.get(`${base}/tasks/:task/pushNotificationConfigs`, record),
      http.get(`${base}/tasks/:task/pushNotificationConfigs/:config`, record),
      http.delete(`${base}/tasks/:task/pushNotificationConfigs/:config`, record),
    );
    return seen;
  }

  it("uses the routes @a2a-js/sdk's REST transport uses, and the same typed results", async () => {
    const config = { ...v1Config, taskId: "task 1", id: "c/1" };
    const seen = routes((request) =>
      request.method === "DELETE"
        ? new Response(null, { status: 204 })
        : Response.json(
            request.method === "GET" && request.url.endsWith("pushNotificationConfigs")
              ? { configs: [config] }
              : config,
          ),
    );
    const { client } = testClient({ binding: "http+json" });
    const want = { ...expected, taskId: "task 1", id: "c/1" };

    expect(await client.createTaskPushNotificationConfig("task 1", { ...input, id: "c/1" })).toEqual(want);
    expect(await client.getTaskPushNotificationConfig("task 1", "c/1")).toEqual(want);
    expect(await client.listTaskPushNotificationConfigs("task 1")).toEqual([want]);
    await client.deleteTaskPushNotificationConfig("task 1", "c/1");

    expect(seen.map(({ verb, url }) => [verb, url])).toEqual([
      ["POST", configs],
      ["GET", `${configs}/c%2F1`],
      ["GET", configs],
      ["DELETE", `${configs}/c%2F1`],
    ]);
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ ...v1Config, taskId: "task 1", id: "c/1" });
    expect(seen.every((r) => r.version === "1.0")).toBe(true);
  });

  it("reads a FAILED_PRECONDITION status with reason PUSH_NOTIFICATION_NOT_SUPPORTED as the typed error", async () => {
    routes(() =>
      Response.json(
        {
          error: {
            code: 400,
            status: "FAILED_PRECONDITION",
            message: "Push notifications are not supported",
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                reason: "PUSH_NOTIFICATION_NOT_SUPPORTED",
                domain: "a2a-protocol.org",
              },
            ],
          },
        },
        { status: 400 },
      ),
    );
    const { client } = testClient({ binding: "http+json" });
    await expect(client.createTaskPushNotificationConfig("task 1", input)).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
    await expect(client.deleteTaskPushNotificationConfig("task 1", "c")).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
  });

  it("sends an inline config in the start's body", async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      http.post(`${base}/message:stream`, async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return sseResponse([`event: task\ndata: ${JSON.stringify(toV1StreamResult(task()))}\n\n`], "close");
      }),
    );
    const { client } = testClient({ binding: "http+json", maxResumeAttempts: 0 });
    await client
      .sendStreamingMessage({ text: "Restock", storeId: "s-1", pushNotificationConfig: { url: RECEIVER } })
      .finished.catch(() => undefined);
    expect(body?.configuration).toEqual({ taskPushNotificationConfig: { url: RECEIVER } });
  });
});
