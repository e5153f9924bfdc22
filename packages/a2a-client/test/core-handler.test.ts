// The client against a2a-core's real request handler (in-memory stores, a scripted executor), in process:
// the resume logic meets the server's actual replay rules (snapshot id 1, Last-Event-ID, idempotency).
import { type AuthOutcome, createA2AHandler, createInMemoryStores, toFetchHandler } from "@a2a-partner/a2a-core";
import { afterEach, describe, expect, it } from "vitest";
// The typed errors, by the names a caller checks them with.
import * as errors from "../src/index.js";
import { A2AClient } from "../src/index.js";
import { collect, followToCompleted, StepExecutor } from "./support/step-executor.js";

const TOKENS: Record<string, AuthOutcome> = {
  a2a_p_a: { ok: true, workspaceId: "ws-a" },
  a2a_u_a: { ok: false, status: 403, message: "A user session token cannot call the partner endpoint" },
};

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const handlers: Array<{ close(options?: { graceMs?: number }): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close({ graceMs: 100 })));
});

function setup(executor = new StepExecutor(), options: { push?: false } = {}) {
  const stores = createInMemoryStores();
  const handler = createA2AHandler({
    stores,
    executor,
    ...options,
    authenticate: async (headers) => {
      const token = headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      return TOKENS[token] ?? { ok: false, status: 401, message: "Missing or invalid token" };
    },
    recoveryIntervalMs: 0,
    basePath: "/api/v1/a2a",
  });
  handlers.push(handler);
  const serve = toFetchHandler(handler);
  const fetch: Fetch = async (input, init) => serve(new Request(input, init));
  return { stores, executor, fetch };
}

/**
 * Cuts the body of the chosen responses after `plan(n)` complete SSE frames, like a dropped connection,
 * and records the method and Last-Event-ID of every request.
 */
function dropping(fetch: Fetch, plan: (n: number) => number | undefined, calls: string[]): Fetch {
  let n = 0;
  return async (input, init) => {
    const cutAfter = plan(n++);
    const method = (JSON.parse(String(init?.body)) as { method: string }).method;
    calls.push(`${method}@${new Headers(init?.headers).get("last-event-id") ?? "-"}`);
    const response = await fetch(input, init);
    if (cutAfter === undefined || !response.body) return response;
    const reader = response.body.getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (seen >= cutAfter) {
          await reader.cancel();
          controller.error(new TypeError("terminated"));
          return;
        }
        const { done, value } = await reader.read();
        if (done) return controller.close();
        seen += new TextDecoder().decode(value).split("\n\n").length - 1;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

function client(fetch: Fetch, token = "a2a_p_a") {
  return new A2AClient({ baseUrl: "http://server.test", token, fetch, sleep: async () => {} });
}

describe("client × a2a-core handler", () => {
  it("follows a task to completed; GetTask and CancelTask agree with the stream", async () => {
    const { fetch } = setup();
    const c = client(fetch);
    const stream = await followToCompleted(c);
    const taskId = stream.taskId as string;
    const polled = await c.getTask(taskId);
    expect(polled.status.state).toBe("completed");
    expect(polled.metadata.messageId).toBe(stream.messageId);
    const error = await c.cancelTask(taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.TaskNotCancelableError);
    expect((error as errors.TaskNotCancelableError).data).toMatchObject({ state: "completed" });
  });

  it("resumes a stream dropped mid-task with every event exactly once, in the log's order", async () => {
    const { fetch, stores } = setup(new StepExecutor(4, 10));
    const calls: string[] = [];
    const c = client(dropping(fetch, (n) => (n === 0 ? 2 : n === 1 ? 1 : undefined), calls));
    const stream = c.sendStreamingMessage({ text: "Restock", storeId: "store-001" });
    const events = await collect(stream);

    // Dropped after task + one update, then a reattach that only brought the snapshot again.
    expect(calls).toEqual(["SendStreamingMessage@-", "SubscribeToTask@2", "SubscribeToTask@2"]);
    const log = await stores.events.readAfter(stream.taskId as string, 0);
    expect(events.map((e) => e.eventId)).toEqual(log.map((e) => String(e.seq)));
    expect(events.at(-1)).toMatchObject({ type: "finished", state: "completed" });
  });

  it("resends the start after a drop before the task id is known, without a second dispatch", async () => {
    const { fetch, executor, stores } = setup(new StepExecutor(2, 5));
    const calls: string[] = [];
    const c = client(dropping(fetch, (n) => (n === 0 ? 0 : undefined), calls));
    const stream = c.sendStreamingMessage({ text: "Restock", storeId: "store-001" });
    const events = await collect(stream);

    expect(calls).toEqual(["SendStreamingMessage@-", "SendStreamingMessage@0"]);
    expect(executor.dispatched).toBe(1);
    const log = await stores.events.readAfter(stream.taskId as string, 0);
    expect(events.map((e) => e.eventId)).toEqual(log.map((e) => String(e.seq)));
  });

  it("cancels a running task; the stream ends canceled", async () => {
    const { fetch } = setup(new StepExecutor(50, 20));
    const c = client(fetch);
    const stream = c.sendStreamingMessage({ text: "Restock", storeId: "store-001" });
    const started = await stream.task;
    const canceled = await c.cancelTask(started.id);
    expect(canceled.status.state).toBe("canceled");
    expect((await stream.finished).state).toBe("canceled");
  });

  it("maps the handler's refusals to the client's error classes", async () => {
    const { fetch } = setup();
    await expect(client(fetch).sendStreamingMessage({ text: "x", storeId: "nowhere" }).finished).rejects.toBeInstanceOf(
      errors.InvalidParamsError,
    );
    await expect(client(fetch, "wrong").getTask("t")).rejects.toBeInstanceOf(errors.AuthenticationError);
    await expect(client(fetch, "a2a_u_a").getTask("t")).rejects.toBeInstanceOf(errors.PermissionError);
    await expect(client(fetch).getTask("no-such-task")).rejects.toBeInstanceOf(errors.TaskNotFoundError);
    await expect(client(fetch).subscribeToTask("no-such-task").finished).rejects.toBeInstanceOf(
      errors.TaskNotFoundError,
    );
  });
});

describe("push configs against a handler with push notifications off", () => {
  it("throws PushNotificationNotSupportedError over JSON-RPC (both versions) and HTTP+JSON", async () => {
    const { fetch } = setup(new StepExecutor(), { push: false });
    const bindings = [{}, { protocolVersion: "1.0" as const }, { binding: "http+json" as const }];
    for (const options of bindings) {
      const c = new A2AClient({
        baseUrl: "http://server.test",
        token: "a2a_p_a",
        fetch,
        sleep: async () => {},
        ...options,
      });
      const calls = [
        () => c.createTaskPushNotificationConfig("t", { url: "https://hooks.example/a2a" }),
        () => c.getTaskPushNotificationConfig("t", "c"),
        () => c.listTaskPushNotificationConfigs("t"),
        () => c.deleteTaskPushNotificationConfig("t", "c"),
      ];
      for (const call of calls) {
        await expect(call(), JSON.stringify(options)).rejects.toBeInstanceOf(errors.PushNotificationNotSupportedError);
      }
    }
  });
});
